// The adaptive in-flight limit of an endpoint, as a pure rule: AIMD on what sends answer.
import type { ConcurrencyState } from '@wirehook/kv';
import type { SendResult } from './outcome.ts';

/** What a send says about the receiver's load. */
export type LoadSignal = 'congestion' | 'success' | 'neutral';

/** At and above its last cut less one, the limit grows by one per this many windows of successes. */
export const PROBE_WINDOWS = 16;

/** 429, 503 and timeouts say the receiver is overloaded; a 2xx that it is not; anything else nothing. */
export function loadSignal(result: Pick<SendResult, 'ok' | 'status' | 'error'>): LoadSignal {
  if (result.ok) return 'success';
  if (result.status === 429 || result.status === 503 || result.error?.startsWith('timeout:') === true) return 'congestion';
  return 'neutral';
}

/**
 * The limit after a send let in under the cut made at `cutSeen` (0: none) ended at `now` with
 * `signal`; `slots` is the endpoint's connection slots (the limit never exceeds them; null
 * state means all of them).
 * - Congestion halves the limit (not below 1), once per episode: a send let in under an
 *   earlier cut (or none) was answered under the old limit and does not cut again. A failed probe — the
 *   limit at or above the last cut's, reached one step at a time after `PROBE_WINDOWS ×
 *   limit` successes at the step below — steps back to that step instead: it is known to
 *   work, and halving there cost a receiver of capacity C the time spent climbing back.
 * - Success adds one after a window of successes of sends that found the endpoint's flight at
 *   its limit (`atLimit`; a receiver given fewer sends than the limit says nothing about more):
 *   one of them while below the last cut less one (it climbs back to where it stood quickly),
 *   `PROBE_WINDOWS × limit` at and above it (it probes past the receiver's capacity rarely:
 *   goodput stays near it). Back at the slots, no limit is kept (null).
 * @returns the new state, or `undefined` when it is unchanged.
 */
export function nextConcurrency(
  state: ConcurrencyState | null,
  signal: LoadSignal,
  slots: number,
  cutSeen: number,
  now: number,
  atLimit: boolean,
): ConcurrencyState | null | undefined {
  if (signal === 'congestion') {
    if (state !== null && cutSeen < state.cutAt) return undefined;
    const limit = Math.min(state?.limit ?? slots, slots);
    const probing = state !== null && limit >= state.ceiling && limit > 1;
    return { limit: probing ? limit - 1 : Math.max(1, Math.floor(limit / 2)), ceiling: limit, successes: 0, cutAt: now };
  }
  if (signal === 'neutral' || state === null || !atLimit) return undefined;
  const successes = state.successes + 1;
  const window = state.limit < state.ceiling - 1 ? 1 : PROBE_WINDOWS * state.limit;
  if (successes < window) return { ...state, successes };
  const limit = state.limit + 1;
  return limit >= slots ? null : { ...state, limit, successes: 0 };
}
