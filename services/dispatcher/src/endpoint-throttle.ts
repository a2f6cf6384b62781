// Throughput control per endpoint: what the SendGate's slots do not decide — a receiver's
// Retry-After hold, the endpoint's rate limit, its adaptive in-flight limit — apart from the
// gate (slots, waiting) and the runner (the order of an attempt's steps).
import type { Clock } from '@wirehook/core';
import { EndpointThroughput, MemoryKv, type ConcurrencyState, type Kv } from '@wirehook/kv';
import { OutageLog, type Logger } from '@wirehook/platform';
import type { DeliveryJob, JobEndpoint } from '@wirehook/store';
import { loadSignal, nextConcurrency } from './concurrency-control.ts';
import { FlightWaits } from './flight-waits.ts';
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
  /**
   * When it was let through: the time its endpoint's rate log counted it at (taken after any
   * wait for a place in flight). The attempt is signed and recorded at this time, so its
   * endpoint's attempts hold `rate_limit` in any second on their own times; a time taken
   * after the Kv's answer trails it by a round trip and any stall of the event loop.
   */
  at: number;
  /**
   * The last cut of the adaptive limit it entered under (its `cutAt`; 0 while none was in
   * force): a congestion answer to a send let in under an earlier cut belongs to that cut's
   * episode. (A time taken at the send lost to races: a cut stamped before its write landed
   * let sends read the old limit after it, and each of their 429s cut again.)
   */
  cutSeen: number;
  /**
   * Whether the endpoint's sends in flight reached its adaptive limit with this one: only then
   * may a success grow it. Asked beside the send, not before it (never rejects).
   */
  atLimit: Promise<boolean>;
}

/** A send that must wait until `until`: it goes back to the store, without an attempt. */
export interface PutOff {
  ok: false;
  until: number;
  reason: 'held' | 'rate' | 'concurrency';
}

/** Claimed deliveries per place of an endpoint's adaptive limit a dispatcher's gate lets in: sending, or ready to. */
const READY_PER_PLACE = 2;
/** A delivery that waited this long for a place in its endpoint's flight goes back to the store. */
const FLIGHT_WAIT_MS = 1_000;
/**
 * How often a waiting delivery asks for a place when no send of its endpoint ended: a check for
 * a lost signal (or a place that freed by its limit growing), not how it learns of a place.
 */
const FLIGHT_RECHECK_MS = 100;
/** A delivery that found no place in its endpoint's flight within FLIGHT_WAIT_MS comes back this soon. */
const CONCURRENCY_RETRY_MS = 100;
const WINDOW_MS = 1_000;
/** Reads and compare-and-sets of one change of an adaptive limit before it gives up (lost to others each time). */
const CHANGE_ATTEMPTS = 3;

/**
 * Decides, after the gate gave a claimed delivery a slot, whether it may be sent now:
 * - not while a receiver's Retry-After holds the endpoint (`heldUntil`, read with the claim);
 * - not past its adaptive in-flight limit, counted across dispatchers (while other
 *   dispatchers' sends hold every place it waits here, for up to a second: see FlightWaits);
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
  readonly #waits: FlightWaits;
  /** The adaptive limits this process last saw, per endpoint (absent: all slots). */
  readonly #states = new Map<string, ConcurrencyState>();
  /** Per endpoint, this process's successes at its limit since the limit (`of`: limit and cut) last changed. */
  readonly #successes = new Map<string, { of: string; n: number }>();
  /** Per endpoint, the change of its adaptive limit under way here (they run one after another). */
  readonly #updating = new Map<string, Promise<void>>();
  /**
   * Per rate-limited endpoint, the next free place of the spacing its put-off deliveries return
   * at, and the limit that spaced them: another limit starts a new spacing.
   */
  readonly #nextSlot = new Map<string, { limit: number; at: number; setAt: number }>();

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
    this.#waits = new FlightWaits({
      enter: (endpointId, member) => this.#enterFlight(endpointId, member),
      leave: (endpointId, member) => this.#call((t) => t.leaveFlight(endpointId, member), undefined),
      // The shared Kv's signal: a send of the endpoint ended in any dispatcher.
      listen: (endpointId, onFreed) => this.#shared.onFreed(endpointId, onFreed),
      pollMs: FLIGHT_RECHECK_MS,
      maxWaitMs: FLIGHT_WAIT_MS,
    });
  }

  /** Deliveries waiting for a place in flight give up now (back to the store); later ones do not wait. */
  stop(): void {
    this.#waits.stop();
  }

  /**
   * The slots the gate gives `endpointId` here (all of them unless its adaptive limit is cut):
   * twice the limit, so that besides its sends as many claimed deliveries stand ready to take
   * a place in flight the moment one frees (FlightWaits: no claim's store round trip between
   * two sends; another dispatcher may hold the places). The rest wait in the gate's parking.
   */
  capOf(endpointId: string): number {
    const limit = this.#states.get(endpointId)?.limit;
    return limit === undefined ? this.#deps.slots : Math.min(this.#deps.slots, READY_PER_PLACE * limit);
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
    const cutSeen = (await this.#enterFlight(endpoint.id, member)) ?? (await this.#waits.wait(endpoint.id, member));
    if (cutSeen === null) {
      this.#deps.metrics.throttled.inc({ class: cls, reason: 'concurrency' });
      return { ok: false, until: this.#deps.clock.now() + CONCURRENCY_RETRY_MS, reason: 'concurrency' };
    }
    const at = this.#deps.clock.now(); // later than `now` after a wait for a place
    if (endpoint.rateLimit != null) {
      const wait = await this.#call((t) => t.admitRate(endpoint.id, member, endpoint.rateLimit as number, at), 0);
      if (wait > 0) {
        await this.#call((t) => t.leaveFlight(endpoint.id, member), undefined);
        this.#waits.kick(endpoint.id);
        this.#deps.metrics.throttled.inc({ class: cls, reason: 'rate' });
        return { ok: false, until: this.#spread(endpoint.id, endpoint.rateLimit, at, at + wait), reason: 'rate' };
      }
    }
    return { ok: true, endpointId: endpoint.id, member, at, cutSeen, atLimit: this.#reachedLimit(endpoint.id) };
  }

  /**
   * Takes a place in the endpoint's flight within its adaptive limit as the Kv has it now, read
   * and taken in one atomic Kv call (issue 46: a read of the limit and then the admit were two
   * Redis round trips a send, and a cut could land between them). While both Kvs fail: let in, no limit.
   * @returns that limit's last cut (0: none in force), or null while the places are all taken.
   */
  async #enterFlight(endpointId: string, member: string): Promise<number | null> {
    const { entered, state } = await this.#call((t) => t.enterFlightLimited(endpointId, member, this.#deps.clock.now()), { entered: true, state: null });
    this.#remember(endpointId, state);
    return entered ? (state?.cutAt ?? 0) : null;
  }

  /** Whether the endpoint's sends in flight (this one counted) fill its adaptive limit; false while none is in force. */
  async #reachedLimit(endpointId: string): Promise<boolean> {
    const limit = this.#states.get(endpointId)?.limit;
    if (limit === undefined) return false;
    return (await this.#call((t) => t.inFlight(endpointId, this.#deps.clock.now()), 0)) >= limit;
  }

  /** A send let in by `admit` ended with `result`: it leaves the flight, and its answer moves the adaptive limit. */
  async ended(admitted: Admitted, endpoint: JobEndpoint, result: SendResult | null): Promise<void> {
    const { endpointId, member } = admitted;
    await this.#call((t) => t.leaveFlight(endpointId, member), undefined);
    this.#waits.kick(endpointId);
    if (result === null) return; // put off unsent: says nothing of the receiver
    const signal = loadSignal(result);
    // Successes without a limit in force, or below it, change nothing: no need to ask the Kv.
    if (signal === 'neutral' || (signal === 'success' && (!this.#states.has(endpointId) || !(await admitted.atLimit)))) return;
    // One change of an endpoint's limit at a time here: interleaved reads and writes of the
    // shared state lost cuts (a success's write put back the limit a 429 had just cut).
    const update = (this.#updating.get(endpointId) ?? Promise.resolve()).then(() => this.#update(admitted, endpoint, signal));
    this.#updating.set(endpointId, update);
    try {
      await update;
    } finally {
      if (this.#updating.get(endpointId) === update) this.#updating.delete(endpointId);
    }
  }

  /**
   * Applies `signal` to the endpoint's adaptive limit. Successes are counted here, per
   * dispatcher (the Kv is written only when the limit changes); a completed window grows the
   * shared limit unless another dispatcher changed it meanwhile. A congestion signal cuts the
   * shared limit as the Kv has it now.
   */
  async #update(admitted: Admitted, endpoint: JobEndpoint, signal: 'success' | 'congestion'): Promise<void> {
    const { endpointId, cutSeen } = admitted;
    const now = this.#deps.clock.now();
    if (signal === 'congestion') {
      const cut = (shared: ConcurrencyState | null) => nextConcurrency(shared, signal, this.#deps.slots, cutSeen, now, true);
      return this.#change(endpointId, endpoint, cut, 'cut');
    }
    const known = this.#states.get(endpointId);
    if (known === undefined) return;
    const of = `${known.limit}:${known.cutAt}`;
    const counting = this.#successes.get(endpointId);
    const successes = counting?.of === of ? counting.n : 0;
    const counted = nextConcurrency({ ...known, successes }, 'success', this.#deps.slots, cutSeen, now, true);
    if (counted === undefined) return;
    if (counted !== null && counted.limit === known.limit) return void this.#successes.set(endpointId, { of, n: counted.successes });
    this.#successes.delete(endpointId);
    // Grown only from the limit these successes were counted at: another dispatcher's change wins.
    const grow = (shared: ConcurrencyState | null) => (shared?.limit === known.limit && shared.cutAt === known.cutAt ? counted : undefined);
    return this.#change(endpointId, endpoint, grow, 'grown');
  }

  /**
   * Writes `rule(shared)` over the shared limit it was computed from (undefined: no change).
   * Another dispatcher's write in between (a read-modify-write apart) makes the compare-and-set
   * fail: the rule is applied again to what the Kv holds then, CHANGE_ATTEMPTS times at most;
   * a change that still loses is dropped (it lost to changes of the same moment).
   */
  async #change(
    endpointId: string,
    endpoint: JobEndpoint,
    rule: (shared: ConcurrencyState | null) => ConcurrencyState | null | undefined,
    change: 'cut' | 'grown',
  ): Promise<void> {
    for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
      const shared = await this.#call((t) => t.concurrency(endpointId), null);
      const next = rule(shared);
      if (next === undefined) return this.#remember(endpointId, shared);
      if (!(await this.#call((t) => t.replaceConcurrency(endpointId, shared, next), false))) continue;
      if (change === 'cut') this.#successes.delete(endpointId);
      this.#remember(endpointId, next);
      this.#deps.metrics.concurrency.inc({ class: endpointClass(endpoint), change });
      return;
    }
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
    const slot = this.#nextSlot.get(endpointId);
    // A spacing of an older limit is not this one's: PATCH made what it put off due again.
    let last = slot?.limit === limit ? slot.at : undefined;
    // Set before the clock stepped back over a window: the spacing moves back with it (left where
    // it was, every delivery the limit refused would wait out the step, an hour's for an hour).
    if (slot !== undefined && last !== undefined && now < slot.setAt - WINDOW_MS) last -= slot.setAt - now;
    const until = last === undefined || last < now ? earliest : Math.max(earliest, last);
    this.#nextSlot.set(endpointId, { limit, at: until + WINDOW_MS / limit, setAt: now });
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

function endpointClass(endpoint: JobEndpoint): EndpointClass {
  return endpoint.rateLimit != null ? 'rate_limited' : 'unlimited';
}
