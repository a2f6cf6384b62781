// What the idempotency front's tests share: message-intake as a fake that counts calls and
// answers as the store does (the first message of a key for 24 hours), a spy around the real
// Kv, and a front wired to both against a real redis-server.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll } from 'vitest';
import {
  ManualClock,
  newId,
  PlanLimitError,
  type Clock,
  type Delivery,
  type DeliveryId,
  type EndpointId,
  type Environment,
  type IntakePort,
  type SendMessageInput,
  type SendMessageResult,
  type Tenant,
} from '@wirehook/core';
import { RedisKv, type Kv } from '@wirehook/kv';
import { createIdempotencyFrontMetrics, createRegistry, silentLogger, type Logger } from '@wirehook/platform';
import { parseMetrics, startRedisServer, type RedisServer } from '@wirehook/testkit';
import { IdempotencyFront } from '../idempotency-front.ts';

const DAY = 24 * 60 * 60_000;

/** message-intake as the front sees it: the store's answer per (org, env, key), within 24 hours. */
export class FakeIntake implements IntakePort {
  calls = 0;
  /** Milliseconds each send takes (per call number, 1-based; default `delayMs`). */
  delayMs = 20;
  readonly delays = new Map<number, number>();
  /** Call numbers that fail with plan_limit. */
  readonly failing = new Set<number>();
  readonly passedThrough: string[] = [];
  readonly #messages = new Map<string, { id: string; deliveries: number; createdAt: number }>();
  #usage = 0;
  readonly clock: Clock;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  async send(input: SendMessageInput): Promise<SendMessageResult> {
    const call = ++this.calls;
    await sleep(this.delays.get(call) ?? this.delayMs);
    if (this.failing.has(call)) throw new PlanLimitError('the Free plan allows 10,000 live messages a month');
    const now = this.clock.now();
    const scope = `${input.tenant.orgId}:${input.tenant.env}:${input.idempotencyKey}`;
    const earlier = input.idempotencyKey === null ? undefined : this.#messages.get(scope);
    if (earlier !== undefined && earlier.createdAt >= now - DAY) return { id: earlier.id, deliveries: earlier.deliveries, usageMonth: this.#usage };
    const message = { id: newId('message', this.clock), deliveries: 2, createdAt: now };
    if (input.idempotencyKey !== null) this.#messages.set(scope, message);
    return { id: message.id, deliveries: message.deliveries, usageMonth: ++this.#usage };
  }

  async retryDelivery(_tenant: Tenant, id: DeliveryId): Promise<Delivery> {
    this.passedThrough.push(`retry ${id}`);
    return { id } as Delivery;
  }

  async releaseHeld(_tenant: Tenant, endpointId: EndpointId): Promise<number> {
    this.passedThrough.push(`release ${endpointId}`);
    return 3;
  }
}

/** A spy around the real Kv: how often the front called Redis. */
export class CountingKv implements Kv {
  calls = 0;
  readonly kv: Kv;
  constructor(kv: Kv) {
    this.kv = kv;
  }
  #count<T>(result: Promise<T>): Promise<T> {
    this.calls++;
    return result;
  }
  incr = (key: string, ttlMs: number) => this.#count(this.kv.incr(key, ttlMs));
  get = (key: string) => this.#count(this.kv.get(key));
  setIfAbsent = (key: string, value: string, ttlMs: number) => this.#count(this.kv.setIfAbsent(key, value, ttlMs));
  compareAndSet = (key: string, expected: string | null, next: string | null, ttlMs: number) => this.#count(this.kv.compareAndSet(key, expected, next, ttlMs));
  /** The expiry of the last `set`: how long Redis keeps an answer. */
  lastSetTtlMs = 0;
  set = (key: string, value: string, ttlMs: number) => {
    this.lastSetTtlMs = ttlMs;
    return this.#count(this.kv.set(key, value, ttlMs));
  };
  delete = (key: string) => this.#count(this.kv.delete(key));
  deleteIfEquals = (key: string, value: string) => this.#count(this.kv.deleteIfEquals(key, value));
  logAdmit = (key: string, member: string, limit: number, windowMs: number, now: number) => this.#count(this.kv.logAdmit(key, member, limit, windowMs, now));
  logAdmitLimitedBy = (key: string, member: string, limitKey: string, defaultLimit: number, windowMs: number, now: number) =>
    this.#count(this.kv.logAdmitLimitedBy(key, member, limitKey, defaultLimit, windowMs, now));
  logRemove = (key: string, member: string, signal?: string) => this.#count(this.kv.logRemove(key, member, signal));
  listen = (channel: string, onSignal: () => void) => this.#count(this.kv.listen(channel, onSignal));
  logCount = (key: string, windowMs: number, now: number) => this.#count(this.kv.logCount(key, windowMs, now));
  close = () => this.kv.close();
}

/** A front wired to a fake intake and a counted Kv, and helpers to send through it and read its metrics. */
export interface Setup {
  front: IdempotencyFront;
  intake: FakeIntake;
  kv: CountingKv;
  clock: ManualClock;
  tenant: Tenant;
  send(key: string | null, tenant?: Tenant): Promise<SendMessageResult>;
  metric(name: string, labels?: Record<string, string>): Promise<number>;
}

/** What a case may change of the front: Redis' address, its bounds, the clock's start, its logger. */
export interface SetupOptions {
  url?: string;
  maxWaitMs?: number;
  startAt?: number;
  logger?: Logger;
  answerTtlMs?: number;
}

/**
 * Starts one redis-server for the calling file's tests (stopped after them) and closes each
 * test's connections after it; returns `setup`, which wires a front to that server.
 */
export function idempotencyFrontFixture(): (options?: SetupOptions) => Setup {
  let server: RedisServer;
  const opened: Kv[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((kv) => kv.close()));
  });

  function setup(options: SetupOptions = {}): Setup {
    const clock = new ManualClock(options.startAt ?? Date.UTC(2026, 0, 15, 12));
    const kv = new CountingKv(new RedisKv({ url: options.url ?? server.url }));
    opened.push(kv);
    const intake = new FakeIntake(clock);
    const registry = createRegistry('test');
    const front = new IdempotencyFront({
      inner: intake,
      kv,
      clock,
      logger: options.logger ?? silentLogger(),
      metrics: createIdempotencyFrontMetrics(registry),
      inflightTtlMs: 5_000,
      maxWaitMs: options.maxWaitMs ?? 2_500,
      // The store's whole window unless a case is about the front's own bound.
      answerTtlMs: options.answerTtlMs ?? DAY,
    });
    const tenant = newTenant(clock);
    const send = (key: string | null, to = tenant) =>
      front.send({
        tenant: to,
        org: { id: to.orgId, name: 'Acme', plan: 'business', ownerEmail: null, createdAt: 0 },
        body: { consumer: 'c', event_type: 'a.b', payload: {} },
        idempotencyKey: key,
      });
    const metric = async (name: string, labels: Record<string, string> = {}) =>
      parseMetrics(await registry.metrics())
        .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        .reduce((sum, s) => sum + s.value, 0);
    return { front, intake, kv, clock, tenant, send, metric };
  }

  return setup;
}

/** A new org's tenant, in the live environment unless `env` says otherwise. */
export const newTenant = (clock: Clock, env: Environment = 'live'): Tenant => ({ orgId: newId('org', clock), env });
