import { RATE_LIMIT_WINDOW_MS } from '@wirehook/core';
import type { Kv } from './kv.ts';

/**
 * An endpoint's adaptive in-flight limit (AIMD), shared by every dispatcher through the Kv.
 * Absent: no congestion seen lately, the endpoint may use all its connection slots.
 */
export interface ConcurrencyState {
  /** Sends to the endpoint in flight at once, across dispatchers. */
  limit: number;
  /** The limit at the last cut: below it less one the limit grows back fast, at it slowly. */
  ceiling: number;
  /** Successes counted toward the next increase. */
  successes: number;
  /** Unix ms of the last cut: a congestion signal from a send started before it is the same episode. */
  cutAt: number;
}

/** An endpoint's throughput now, as GET /v1/endpoints/{id} shows it. */
export interface ThroughputSnapshot {
  /** The adaptive in-flight limit; null while no congestion was seen lately (all connection slots). */
  concurrency: number | null;
  inFlight: number;
}

/** A send longer than this is no longer counted in flight (longer than any lease). */
export const FLIGHT_WINDOW_MS = 120_000;
/** An endpoint's adaptive limit is forgotten after this long without a change: back to its slots. */
const STATE_TTL_MS = 10 * 60_000;
/** No limit on the flight log: it only counts (the local slots bound the sends). */
const UNBOUNDED = 1_000_000;

/**
 * Where an endpoint's throughput state lives, the same for every dispatcher and the
 * gateway that reports it: its sends of the last second (a sliding log, for `rate_limit`),
 * its sends in flight (a log its sends leave as they end), its adaptive limit. Keys
 * `tp:rate:<endpoint>`, `tp:flight:<endpoint>`, `tp:conc:<endpoint>`; a send leaving its flight
 * signals on the channel `tp:freed:<endpoint>`.
 */
export class EndpointThroughput {
  readonly #kv: Kv;
  /**
   * Per endpoint, the value last read that is not a state (not written by `encode`: corrupt, or
   * another version's): read as none in force, and replaced by the next change as if it were none.
   */
  readonly #unreadable = new Map<string, string>();

  constructor(kv: Kv) {
    this.#kv = kv;
  }

  /** Counts one send at `now` against `limit` per second: 0, or the ms until one fits (nothing counted then). */
  admitRate(endpointId: string, member: string, limit: number, now: number): Promise<number> {
    return this.#kv.logAdmit(`tp:rate:${endpointId}`, member, limit, RATE_LIMIT_WINDOW_MS, now);
  }

  /**
   * Takes a place in flight within the endpoint's adaptive limit (none in force: not limited), the
   * limit read in the same atomic Kv step: one round trip, not a read of `concurrency()` then an admit.
   * @returns whether a place was taken (false: they are all taken), and the limit as `concurrency()` reads it.
   */
  async enterFlightLimited(endpointId: string, member: string, now: number): Promise<{ entered: boolean; state: ConcurrencyState | null }> {
    const { wait, limitValue } = await this.#kv.logAdmitLimitedBy(`tp:flight:${endpointId}`, member, `tp:conc:${endpointId}`, UNBOUNDED, FLIGHT_WINDOW_MS, now);
    // The place is taken by now: a value that is not a state reads as none in force (as the Kv
    // took it), not as a failure, which would take a second place in the process's own Kv.
    return { entered: wait === 0, state: this.#read(endpointId, limitValue) };
  }

  /** The send `member` ended: its place is free, and every dispatcher listening (`onFreed`) is told. */
  leaveFlight(endpointId: string, member: string): Promise<void> {
    return this.#kv.logRemove(`tp:flight:${endpointId}`, member, `tp:freed:${endpointId}`);
  }

  /** Calls `onFreed` each time a send of the endpoint leaves its flight, in any process, until the returned function is called. */
  onFreed(endpointId: string, onFreed: () => void): Promise<() => void> {
    return this.#kv.listen(`tp:freed:${endpointId}`, onFreed);
  }

  /** The endpoint's sends in flight at `now`, across dispatchers. */
  inFlight(endpointId: string, now: number): Promise<number> {
    return this.#kv.logCount(`tp:flight:${endpointId}`, FLIGHT_WINDOW_MS, now);
  }

  /** The endpoint's adaptive limit, or null when none is in force. */
  async concurrency(endpointId: string): Promise<ConcurrencyState | null> {
    return this.#read(endpointId, await this.#kv.get(`tp:conc:${endpointId}`));
  }

  /**
   * Stores `next` as the endpoint's adaptive limit (null: none, back to the slots) only while the Kv still holds
   * `seen`, as `concurrency()` or `enterFlightLimited()` read it: a change computed from a read another dispatcher has
   * written over since (a cut) is refused, not written over it. @returns whether it was stored.
   */
  async replaceConcurrency(endpointId: string, seen: ConcurrencyState | null, next: ConcurrencyState | null): Promise<boolean> {
    // Compared as the text read (fields another version wrote included), else as encoded; none
    // as what was read that is not a state, if anything.
    const expected = seen === null ? (this.#unreadable.get(endpointId) ?? null) : (storedText.get(seen) ?? encode(seen));
    const replaced = await this.#kv.compareAndSet(`tp:conc:${endpointId}`, expected, next === null ? null : encode(next), STATE_TTL_MS);
    if (replaced) this.#unreadable.delete(endpointId);
    return replaced;
  }

  /** The state stored as `text` (null: none, or not a state), its text remembered for `replaceConcurrency`. */
  #read(endpointId: string, text: string | null): ConcurrencyState | null {
    const state = text === null ? null : stateOf(text);
    if (text !== null && state === null) this.#unreadable.set(endpointId, text);
    else this.#unreadable.delete(endpointId);
    return state;
  }

  /** The endpoint's adaptive limit and sends in flight at `now`. */
  async snapshot(endpointId: string, now: number): Promise<ThroughputSnapshot> {
    const [state, inFlight] = await Promise.all([this.concurrency(endpointId), this.inFlight(endpointId, now)]);
    return { concurrency: state?.limit ?? null, inFlight };
  }
}

/** The text each state `concurrency()` or `enterFlightLimited()` returned was read from: what a compare-and-set expects. */
const storedText = new WeakMap<ConcurrencyState, string>();

/**
 * The state `text` holds, its text remembered (`storedText`); null when it is not one: not JSON, or
 * a `limit` that is not a positive integer (the Kv's admit ignores it too) or a field not a number.
 */
function stateOf(text: string): ConcurrencyState | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const state = value as ConcurrencyState;
  const numbers = [state.ceiling, state.successes, state.cutAt].every((n) => typeof n === 'number' && Number.isFinite(n));
  if (!Number.isSafeInteger(state.limit) || state.limit < 1 || !numbers) return null;
  storedText.set(state, text);
  return state;
}

/**
 * The stored text of a state, its fields in a fixed order: `replaceConcurrency` compares what it
 * read by encoding it again, so a state rebuilt by a spread must encode as it was stored.
 */
function encode(state: ConcurrencyState): string {
  const { limit, ceiling, successes, cutAt } = state;
  return JSON.stringify({ limit, ceiling, successes, cutAt });
}
