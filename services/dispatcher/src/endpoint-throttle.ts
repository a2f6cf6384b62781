// Throughput control per endpoint (#32): what the SendGate's slots do not decide — a receiver's
// Retry-After hold, the endpoint's rate limit, its adaptive in-flight limit — apart from the
// gate (slots, waiting) and the runner (the order of an attempt's steps).
import type { Clock, Endpoint } from '@wirehook/core';
import { EndpointThroughput, MemoryKv, type ConcurrencyState, type Kv } from '@wirehook/kv';
import { OutageLog, type Logger } from '@wirehook/platform';
import type { DeliveryJob } from '@wirehook/store';
import { loadSignal, nextConcurrency } from './concurrency-control.ts';
import type { SendResult } from './outcome.ts';
import type { EndpointClass, ThroughputMetrics } from './throughput-metrics.ts';

export interface EndpointThrottleDeps {
  /** Shared by every dispatcher (Redis in cluster mode); while it fails, each process counts alone. */
  kv: Kv;
  clock: Clock;
  logger: Logger;
  metrics: ThroughputMetrics;
  /** The endpoint's connection slots: where its adaptive limit starts, and its ceiling. */
  slots: number;
}

/** A send let through: leave with `ended`. */
export interface Admitted {
  ok: true;
  endpointId: string;
  member: string;
  sentAt: number;
}

/** A send that must wait until `until`: it goes back to the store, without an attempt. */
export interface PutOff {
  ok: false;
  until: number;
  reason: 'held' | 'rate' | 'concurrency';
}

/** A delivery kept out by the adaptive in-flight limit of other dispatchers' sends tries again this soon. */
const CONCURRENCY_RETRY_MS = 100;
const WINDOW_MS = 1_000;

/**
 * Decides, after the gate gave a claimed delivery a slot, whether it may be sent now:
 * - not while a receiver's Retry-After holds the endpoint (`heldUntil`, read with the claim);
 * - not past its adaptive in-flight limit, counted across dispatchers;
 * - not past its `rate_limit` within any one second (a sliding log, across dispatchers).
 * A delivery put off goes back to the store until the time given, holding no place or slot
 * meanwhile, so a throttled endpoint never blocks another. Deliveries put off by the rate
 * limit are spaced a second / `rate_limit` apart, so a backlog comes back at the pace it
 * can be sent, not all at once. Kv faults never stop a send: while the shared
 * Kv fails, this process counts in its own memory (logged as an outage).
 */
export class EndpointThrottle {
  readonly #deps: EndpointThrottleDeps;
  readonly #shared: EndpointThroughput;
  readonly #local: EndpointThroughput;
  readonly #outage: OutageLog;
  /** The adaptive limits this process last saw, per endpoint (absent: all slots). */
  readonly #states = new Map<string, ConcurrencyState>();
  /** Per rate-limited endpoint, the next free place of the spacing its put-off deliveries return at. */
  readonly #nextSlot = new Map<string, number>();

  constructor(deps: EndpointThrottleDeps) {
    this.#deps = deps;
    this.#shared = new EndpointThroughput(deps.kv);
    this.#local = new EndpointThroughput(new MemoryKv({ clock: deps.clock }));
    this.#outage = new OutageLog({
      logger: deps.logger,
      clock: deps.clock,
      what: 'the shared Kv (Redis) fails',
      deferred: 'throughput checks made by this process alone',
      consequence: 'rate and in-flight limits are counted per dispatcher until it answers',
    });
  }

  /** The in-flight limit the gate applies to `endpointId` here (its slots unless cut). */
  capOf(endpointId: string): number {
    return Math.min(this.#deps.slots, this.#states.get(endpointId)?.limit ?? this.#deps.slots);
  }

  /** Whether `job` may be sent at `now`; when it may, it is counted in flight until `ended`. */
  async admit(job: DeliveryJob, now: number): Promise<Admitted | PutOff> {
    const endpoint = job.endpoint;
    const cls = endpointClass(endpoint);
    if (endpoint.heldUntil != null && endpoint.heldUntil > now) {
      this.#deps.metrics.held.inc({ class: cls });
      return { ok: false, until: endpoint.heldUntil, reason: 'held' };
    }
    const member = `${job.delivery.id}:${job.leaseToken}`;
    const state = await this.#call((t) => t.concurrency(endpoint.id), null);
    this.#remember(endpoint.id, state);
    if (!(await this.#call((t) => t.enterFlight(endpoint.id, member, state?.limit ?? null, now), true))) {
      this.#deps.metrics.throttled.inc({ class: cls, reason: 'concurrency' });
      return { ok: false, until: now + CONCURRENCY_RETRY_MS, reason: 'concurrency' };
    }
    if (endpoint.rateLimit != null) {
      const wait = await this.#call((t) => t.admitRate(endpoint.id, member, endpoint.rateLimit as number, now), 0);
      if (wait > 0) {
        await this.#call((t) => t.leaveFlight(endpoint.id, member), undefined);
        this.#deps.metrics.throttled.inc({ class: cls, reason: 'rate' });
        return { ok: false, until: this.#spread(endpoint.id, endpoint.rateLimit, now, now + wait), reason: 'rate' };
      }
    }
    return { ok: true, endpointId: endpoint.id, member, sentAt: now };
  }

  /** A send let in by `admit` ended with `result`: it leaves the flight, and its answer moves the adaptive limit. */
  async ended(admitted: Admitted, endpoint: Endpoint, result: SendResult | null): Promise<void> {
    const { endpointId, member, sentAt } = admitted;
    await this.#call((t) => t.leaveFlight(endpointId, member), undefined);
    if (result === null) return; // put off unsent: says nothing of the receiver
    const signal = loadSignal(result);
    // Successes without a limit in force change nothing: no need to ask the Kv.
    if (signal === 'neutral' || (signal === 'success' && !this.#states.has(endpointId))) return;
    const now = this.#deps.clock.now();
    const state = await this.#call((t) => t.concurrency(endpointId), null);
    const next = nextConcurrency(state, signal, this.#deps.slots, sentAt, now);
    if (next === undefined) return this.#remember(endpointId, state);
    await this.#call((t) => t.saveConcurrency(endpointId, next), undefined);
    this.#remember(endpointId, next);
    const change = signal === 'congestion' ? 'cut' : 'grown';
    if (signal === 'congestion' || next === null || next.limit !== state?.limit) this.#deps.metrics.concurrency.inc({ class: endpointClass(endpoint), change });
  }

  #remember(endpointId: string, state: ConcurrencyState | null): void {
    if (state === null) this.#states.delete(endpointId);
    else this.#states.set(endpointId, state);
  }

  /**
   * When a delivery refused by the rate limit comes back: `earliest` (when the window has
   * room), or the next free place of an even spacing (a second / `limit` apart) after those
   * already put off, so a backlog returns at the pace it can go, not all at once, and each
   * return finds the window with room.
   */
  #spread(endpointId: string, limit: number, now: number, earliest: number): number {
    const last = this.#nextSlot.get(endpointId);
    const until = last === undefined || last < now ? earliest : Math.max(earliest, last);
    this.#nextSlot.set(endpointId, until + WINDOW_MS / limit);
    return Math.ceil(until);
  }

  /** Runs `op` on the shared state; while that fails, on this process's own (never throws). */
  async #call<T>(op: (t: EndpointThroughput) => Promise<T>, fallback: T): Promise<T> {
    try {
      const value = await op(this.#shared);
      this.#outage.succeeded();
      return value;
    } catch (err) {
      this.#outage.failed(err);
      try {
        return await op(this.#local);
      } catch {
        return fallback;
      }
    }
  }
}

function endpointClass(endpoint: Endpoint): EndpointClass {
  return endpoint.rateLimit != null ? 'rate_limited' : 'unlimited';
}
