import type { Environment } from '@wirehook/core';
import type { AlertState, AlertWindow, NoticeEndpoint } from '@wirehook/store';

/** The spec's throttle: an hour. */
export const HOUR_MS = 3_600_000;

export function emptyState(): AlertState {
  return { version: 0, windows: {}, lastNoticeAt: {}, notifiedStreaks: {} };
}

const NO_WINDOW: AlertWindow = { windowStart: null, pending: [] };

/**
 * One endpoint's delivery failure against the throttle of its environment (spec: at most one
 * notice per endpoint per hour; one delivery-failure notice per hour at once, the other
 * endpoints that begin failing in that hour combined into one notice at its end). Targets
 * belong to an environment, so each environment has its hour. `deliverable` false (the
 * environment has no target): nothing is sent, and nothing is recorded either — no hour
 * opens, the endpoint and its streak count as not notified — so the first failure after a
 * target is added is told at once. An endpoint told within the hour waits for the hour's end too.
 * @returns the new state, and the endpoints to notify now (empty: throttled, waiting or nobody to tell).
 */
export function onFailure(given: AlertState, endpoint: NoticeEndpoint, now: number, deliverable = true): { state: AlertState; notifyNow: NoticeEndpoint[] } {
  if (!deliverable) return { state: given, notifyNow: [] };
  const state = asOf(given, now);
  const window = state.windows[endpoint.env] ?? NO_WINDOW;
  if (window.pending.some((p) => p.endpointId === endpoint.endpointId)) return { state: markStreak(state, endpoint), notifyNow: [] };
  const last = state.lastNoticeAt[endpoint.endpointId];
  if (last !== undefined && now - last < HOUR_MS) {
    // Told within the hour: this failure (a new streak, retries exhausted) is told at the end of
    // that hour, combined — delayed by the throttle, never dropped. The hour its notice opened is
    // the environment's open one; should none be open (its targets went meanwhile), the hour
    // counts from that notice.
    const open = window.windowStart !== null && now < window.windowStart + HOUR_MS;
    const hour = open ? window : { windowStart: last, pending: window.pending };
    return { state: markStreak(withWindow(state, endpoint.env, { ...hour, pending: [...hour.pending, endpoint] }), endpoint), notifyNow: [] };
  }
  if (window.windowStart !== null && now < window.windowStart + HOUR_MS) {
    return { state: markStreak(withWindow(state, endpoint.env, { ...window, pending: [...window.pending, endpoint] }), endpoint), notifyNow: [] };
  }
  const opened = withWindow(state, endpoint.env, { windowStart: now, pending: [] });
  return {
    state: markStreak({ ...opened, lastNoticeAt: { ...pruned(state.lastNoticeAt, now), [endpoint.endpointId]: now } }, endpoint),
    notifyNow: [endpoint],
  };
}

/**
 * The hours that are over: each environment's waiting endpoints go in one notice, which opens
 * its next hour. An environment left without a target meanwhile sends nothing and its hour
 * closes without opening another (its endpoints are forgotten, as if never notified).
 * @returns the new state and one list of endpoints per notice to send.
 */
export function flush(
  state: AlertState,
  now: number,
  deliverable: (env: Environment) => boolean = () => true,
): { state: AlertState; notices: NoticeEndpoint[][] } {
  let next = asOf(state, now);
  const notices: NoticeEndpoint[][] = [];
  for (const [env, window] of Object.entries(next.windows) as [Environment, AlertWindow][]) {
    if (window.pending.length === 0 || window.windowStart === null || now < window.windowStart + HOUR_MS) continue;
    if (!deliverable(env)) {
      const notifiedStreaks = { ...next.notifiedStreaks };
      for (const p of window.pending) delete notifiedStreaks[p.endpointId];
      next = { ...withWindow(next, env, NO_WINDOW), notifiedStreaks };
      continue;
    }
    const lastNoticeAt = pruned(next.lastNoticeAt, now);
    for (const p of window.pending) lastNoticeAt[p.endpointId] = now;
    next = { ...withWindow(next, env, { windowStart: now, pending: [] }), lastNoticeAt };
    notices.push(window.pending);
  }
  return { state: next, notices };
}

/**
 * Forgets what no longer matters: per-endpoint notice times older than the throttle, and
 * notified streaks that began before `streaksSince` (the engine looks no further back).
 */
export function compact(state: AlertState, now: number, streaksSince: number): AlertState {
  return {
    ...state,
    lastNoticeAt: pruned(state.lastNoticeAt, now),
    notifiedStreaks: Object.fromEntries(Object.entries(state.notifiedStreaks).filter(([, since]) => since >= streaksSince)),
  };
}

/**
 * `state` with its times after `now` put at `now` (and kept so: the next call's `now` has moved
 * on): written before the clock stepped back (NTP, a restored VM), an hour's start or a notice's
 * time would have held the hour open, or the endpoint throttled, for the length of the step too —
 * an outage told a day late after a day's step. The same object when nothing is ahead (the rule).
 */
function asOf(state: AlertState, now: number): AlertState {
  const windows = Object.entries(state.windows) as [Environment, AlertWindow][];
  const ahead = windows.some(([, w]) => w.windowStart !== null && w.windowStart > now) || Object.values(state.lastNoticeAt).some((at) => at > now);
  if (!ahead) return state;
  return {
    ...state,
    windows: Object.fromEntries(windows.map(([env, w]) => [env, w.windowStart !== null && w.windowStart > now ? { ...w, windowStart: now } : w])),
    lastNoticeAt: Object.fromEntries(Object.entries(state.lastNoticeAt).map(([id, at]) => [id, Math.min(at, now)])),
  };
}

/** Whatever notice covers this failure streak (now, at the hour's end, or one within the hour) covers it once. */
function markStreak(state: AlertState, endpoint: NoticeEndpoint): AlertState {
  if (endpoint.failingSince === null) return state;
  return { ...state, notifiedStreaks: { ...state.notifiedStreaks, [endpoint.endpointId]: endpoint.failingSince } };
}

function withWindow(state: AlertState, env: Environment, window: AlertWindow): AlertState {
  return { ...state, windows: { ...state.windows, [env]: window } };
}

/** Forgets per-endpoint notice times older than the throttle (the state stays small). */
function pruned(times: Record<string, number>, now: number): Record<string, number> {
  return Object.fromEntries(Object.entries(times).filter(([, at]) => now - at < HOUR_MS));
}
