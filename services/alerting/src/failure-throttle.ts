import type { AlertState, NoticeEndpoint } from '@wirehook/store';

/** The spec's throttle: an hour. */
export const HOUR_MS = 3_600_000;

export function emptyState(): AlertState {
  return { version: 0, windowStart: null, pending: [], lastNoticeAt: {}, notifiedStreaks: {} };
}

/**
 * One endpoint's delivery failure against the organization's throttle (spec: at most one
 * notice per endpoint per hour; one delivery-failure notice per organization at once per
 * hour, the other endpoints that begin failing in that hour combined into one notice at its
 * end). @returns the new state, and the endpoints to notify now (empty: throttled or waiting).
 */
export function onFailure(state: AlertState, endpoint: NoticeEndpoint, now: number): { state: AlertState; notifyNow: NoticeEndpoint[] } {
  const last = state.lastNoticeAt[endpoint.endpointId];
  if (last !== undefined && now - last < HOUR_MS) return { state, notifyNow: [] };
  if (state.pending.some((p) => p.endpointId === endpoint.endpointId)) return { state, notifyNow: [] };
  if (state.windowStart !== null && now < state.windowStart + HOUR_MS) {
    return { state: { ...state, pending: [...state.pending, endpoint] }, notifyNow: [] };
  }
  return {
    state: { ...state, windowStart: now, lastNoticeAt: { ...pruned(state.lastNoticeAt, now), [endpoint.endpointId]: now } },
    notifyNow: [endpoint],
  };
}

/** The hour is over: the endpoints waiting in it go in one notice, which opens the next hour. */
export function flush(state: AlertState, now: number): { state: AlertState; notifyNow: NoticeEndpoint[] } {
  if (state.pending.length === 0 || state.windowStart === null || now < state.windowStart + HOUR_MS) return { state, notifyNow: [] };
  const lastNoticeAt = pruned(state.lastNoticeAt, now);
  for (const p of state.pending) lastNoticeAt[p.endpointId] = now;
  return { state: { ...state, windowStart: now, pending: [], lastNoticeAt }, notifyNow: state.pending };
}

/** Forgets per-endpoint notice times older than the throttle (the state stays small). */
function pruned(times: Record<string, number>, now: number): Record<string, number> {
  return Object.fromEntries(Object.entries(times).filter(([, at]) => now - at < HOUR_MS));
}
