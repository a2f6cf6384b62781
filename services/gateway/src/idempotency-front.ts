import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  IDEMPOTENCY_WINDOW_MS,
  idTime,
  monthStart,
  type Clock,
  type Delivery,
  type DeliveryId,
  type EndpointId,
  type IntakePort,
  type SendMessageInput,
  type SendMessageResult,
  type Tenant,
} from '@wirehook/core';
import type { Kv } from '@wirehook/kv';
import { OutageLog, type IdempotencyFrontMetrics, type Logger } from '@wirehook/platform';

/** Options for {@link IdempotencyFront}. */
export interface IdempotencyFrontOptions {
  /** What decides: message-intake, whose store transaction checks the key. */
  inner: IntakePort;
  kv: Kv;
  /** Judges the key's 24-hour window and the month of a remembered `usageMonth`. */
  clock: Clock;
  logger: Logger;
  metrics: IdempotencyFrontMetrics;
  /**
   * How long an in-flight marker lives when its owner never replaces it (a gateway that died
   * mid-send): at least the owner's longest call to `inner`, the gRPC deadline.
   */
  inflightTtlMs: number;
  /** Longest a duplicate waits for the first send's answer before it asks `inner` itself. */
  maxWaitMs: number;
  /**
   * How long an answer is remembered, at most (IDEMPOTENCY_FRONT_TTL_SECONDS). The store
   * decides a key for its whole 24 hours anyway; the front only has to catch a client's
   * retries, which come within minutes. Remembering every answer for 24 hours would keep one
   * Redis key per keyed send of the last day (4 × 10^8 at 5,000 sends/s); this keeps the
   * front's size to the rate times this.
   */
  answerTtlMs: number;
}

/**
 * A remembered answer ends this long before the store's window does. The window starts at
 * the message's creation by intake's clock; the front reads it from the id and judges it by
 * the gateway's clock. Leaving the window's last minute to the store means a gateway clock
 * up to a minute behind never replays a key the store would treat as new.
 */
export const WINDOW_MARGIN_MS = 60_000;

/** Until when a remembered answer of a message created at `created` may stand in for the store's. */
function answerUntil(created: number): number {
  return created + IDEMPOTENCY_WINDOW_MS - WINDOW_MARGIN_MS;
}

const PENDING = 'pending:';
// A waiting duplicate polls at 2, 4, 8 … ms, then every 50 ms: most first sends answer in a
// few ms, and a slow one should not have 49 waiters hammering Redis.
const FIRST_POLL_MS = 2;
const MAX_POLL_MS = 50;
const FAILED: unique symbol = Symbol('redis call failed');

type WaitOutcome = 'answered' | 'released' | 'timed_out' | 'unavailable';

/**
 * Redis in front of the store for sends with an Idempotency-Key (cluster mode). The store
 * stays the arbiter: it checks the key in the transaction that writes the message. The
 * front only spares it work: while a send is in flight its key holds a `pending:` marker
 * (`SET NX PX`), and concurrent duplicates wait for that send's answer instead of racing
 * into store transactions; afterwards the key holds the answer until the store's window
 * ends, so a replay is answered without calling intake at all. Whenever the front cannot
 * tell — Redis down or slow, the first send failed, the wait ran out — the send goes to
 * intake as it would without the front. Sends without a key, and every other method, pass
 * straight through.
 */
export class IdempotencyFront implements IntakePort {
  readonly #o: IdempotencyFrontOptions;
  readonly #outage: OutageLog;

  constructor(options: IdempotencyFrontOptions) {
    this.#o = options;
    this.#outage = new OutageLog({
      logger: options.logger,
      clock: options.clock,
      what: 'Redis unreachable for Idempotency-Keys',
      deferred: 'Redis calls failed',
      consequence: 'keyed sends go straight to message-intake, whose store decides',
    });
  }

  /** As `inner.send`; a replay within the key's window may be answered from Redis. @throws what `inner.send` throws. */
  async send(input: SendMessageInput): Promise<SendMessageResult> {
    if (input.idempotencyKey === null) return this.#o.inner.send(input);
    const key = frontKey(input.tenant, input.idempotencyKey);
    const token = `${PENDING}${randomUUID()}`;
    const found = await this.#redis(() => this.#o.kv.setIfAbsent(key, token, this.#o.inflightTtlMs));
    if (found === FAILED) return this.#o.inner.send(input);
    if (found === null) return this.#first(key, token, input);
    if (found.startsWith(PENDING)) return this.#wait(key, input);
    const answer = this.#usable(found);
    if (answer === undefined) return this.#ask(key, input); // out of its window or month: the store decides
    this.#o.metrics.replays.inc();
    return { ...answer, replayed: true };
  }

  retryDelivery(tenant: Tenant, id: DeliveryId): Promise<Delivery> {
    return this.#o.inner.retryDelivery(tenant, id);
  }

  releaseHeld(tenant: Tenant, endpointId: EndpointId): Promise<number> {
    return this.#o.inner.releaseHeld(tenant, endpointId);
  }

  /** This send holds the marker: it asks intake, then leaves the answer in the marker's place. */
  async #first(key: string, token: string, input: SendMessageInput): Promise<SendMessageResult> {
    let result: SendMessageResult;
    try {
      result = await this.#o.inner.send(input);
    } catch (err) {
      // Waiters then ask intake themselves, each getting its own verdict (a plan_limit is not
      // an answer to remember). Only our own marker: a later send's must stay.
      await this.#redis(() => this.#o.kv.deleteIfEquals(key, token));
      throw err;
    }
    if (!(await this.#remember(key, result))) await this.#redis(() => this.#o.kv.deleteIfEquals(key, token));
    return result;
  }

  /** Another send of the key is in flight: wait for its answer, within `maxWaitMs`. */
  async #wait(key: string, input: SendMessageInput): Promise<SendMessageResult> {
    // Real time, not the clock: Redis' expiries and the caller's patience run on it (a
    // test's clock may stand still).
    const until = performance.now() + this.#o.maxWaitMs;
    for (let delay = FIRST_POLL_MS; ; delay = Math.min(delay * 2, MAX_POLL_MS)) {
      const left = until - performance.now();
      if (left <= 0) return this.#waited('timed_out', this.#ask(key, input));
      await sleep(Math.min(delay, left));
      const value = await this.#redis(() => this.#o.kv.get(key));
      if (value === FAILED) return this.#waited('unavailable', this.#o.inner.send(input));
      if (value?.startsWith(PENDING)) continue;
      const answer = value === null ? undefined : this.#usable(value);
      if (answer === undefined) return this.#waited('released', this.#ask(key, input));
      return this.#waited('answered', Promise.resolve({ ...answer, replayed: true }));
    }
  }

  #waited(outcome: WaitOutcome, result: Promise<SendMessageResult>): Promise<SendMessageResult> {
    this.#o.metrics.waits.inc({ outcome });
    return result;
  }

  /** Intake decides; a success is the key's answer (the store returns the first message), so it is kept. */
  async #ask(key: string, input: SendMessageInput): Promise<SendMessageResult> {
    const result = await this.#o.inner.send(input);
    await this.#remember(key, result);
    return result;
  }

  /** Keeps `result` as the key's answer, replacing a marker; @returns false when it was not kept. */
  async #remember(key: string, result: SendMessageResult): Promise<boolean> {
    const now = this.#o.clock.now();
    const created = idTime(result.id);
    if (created === undefined) return false;
    // Never past the store's window (from the original's creation, read from its id: a
    // replay the store answered may be hours old), nor into the next month, whose
    // x-usage-month the remembered figure is not.
    const ttlMs = Math.min(answerUntil(created), monthStart(now, -1), now + this.#o.answerTtlMs) - now;
    if (ttlMs <= 0) return false;
    const value = JSON.stringify({ id: result.id, deliveries: result.deliveries, usageMonth: result.usageMonth, at: now });
    return (await this.#redis(() => this.#o.kv.set(key, value, ttlMs))) !== FAILED;
  }

  /**
   * A remembered answer, if it still holds by this clock (Redis' expiry runs on another: a
   * moved test clock, or a gateway whose clock differs from the one that stored it).
   */
  #usable(value: string): SendMessageResult | undefined {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return undefined;
    }
    const { id, deliveries, usageMonth, at } = (parsed ?? {}) as Record<string, unknown>;
    if (typeof id !== 'string' || typeof deliveries !== 'number' || typeof usageMonth !== 'number' || typeof at !== 'number') return undefined;
    const created = idTime(id);
    const now = this.#o.clock.now();
    if (created === undefined || now > answerUntil(created)) return undefined;
    if (now > at + this.#o.answerTtlMs || monthStart(at) !== monthStart(now)) return undefined;
    return { id, deliveries, usageMonth };
  }

  /** Runs one Redis call; a failure of any kind is counted, logged once per outage, and answered FAILED. */
  async #redis<T>(call: () => Promise<T>): Promise<T | typeof FAILED> {
    try {
      const value = await call();
      this.#outage.succeeded();
      return value;
    } catch (err) {
      this.#o.metrics.redisErrors.inc();
      this.#outage.failed(err);
      return FAILED;
    }
  }
}

/**
 * The Redis key of an Idempotency-Key, scoped as the store scopes it (org and environment).
 * The key itself is hashed: any 1–256 characters make a short key of safe characters.
 */
export function frontKey(tenant: Tenant, idempotencyKey: string): string {
  return `idem:${tenant.orgId}:${tenant.env}:${createHash('sha256').update(idempotencyKey).digest('base64url')}`;
}
