// What the bench harness and its receiver process say to each other over the IPC channel.

/**
 * How a route answers: `ok` 200 after the signature check, `fail` 500, `hang` never (the
 * request stays open), `capacity` as a receiver of fixed capacity (set with a `capacity`
 * message): 429 above `capacity` requests in flight on the route, else 200 after `serviceMs`.
 */
export type RouteMode = 'ok' | 'fail' | 'hang' | 'capacity';

/** One endpoint URL path `/r/<id>` of the receiver, with the secret its webhooks are signed with. */
export interface RouteSpec {
  id: string;
  /** `whsec_…` as Wirehook returned it. */
  secret: string;
  mode: RouteMode;
  /** Counters are kept per group (e.g. `healthy`, `failing`). */
  group: string;
}

/** Per group, since the last reset. */
export interface GroupStats {
  /** Distinct (route, webhook-id) pairs with a valid signature answered 2xx. */
  delivered: number;
  /** Valid requests for a pair already delivered (at-least-once re-sends). */
  duplicates: number;
  /** Valid requests answered 500 (the route's mode is `fail`). */
  failed: number;
  /** Valid requests answered 429 (a `capacity` route with `capacity` in flight). */
  refused: number;
  /** Receive time (Unix ms, sub-ms precision) of the first and the latest delivered request. */
  firstAt: number | null;
  lastAt: number | null;
}

export interface ReceiverStats {
  groups: Record<string, GroupStats>;
  /** Requests whose signature, timestamp or headers did not check out. */
  invalid: number;
  /** Requests to a path that is no route. */
  unknownRoute: number;
  /** Ordered webhooks delivered with a `webhook-sequence` not above the last delivered of their route and key. */
  outOfOrder: number;
  /** Requests held open right now by routes in `hang` mode (answered 503 when their route leaves it); not reset. */
  held: number;
  /**
   * Accept→receive latency of every delivered request, all groups (receive time − the
   * body's timestamp), ms; only when asked for; null when nothing was delivered.
   */
  latencyMs?: { p50: number; p99: number; max: number } | null;
}

export type HarnessMessage =
  | { seq: number; type: 'listen'; host: string; port: number; keyPem: string; certPem: string }
  | { seq: number; type: 'routes'; routes: RouteSpec[] }
  | { seq: number; type: 'mode'; ids: string[]; mode: RouteMode }
  | { seq: number; type: 'failKeys'; keys: string[] }
  | { seq: number; type: 'capacity'; ids: string[]; capacity: number; serviceMs: number }
  | { seq: number; type: 'times'; group: string }
  | { seq: number; type: 'stats'; latency: boolean }
  | { seq: number; type: 'reset' };

export type ReceiverMessage =
  | { seq: number; type: 'ok' }
  | { seq: number; type: 'error'; code: string; message: string }
  | { seq: number; type: 'stats'; stats: ReceiverStats }
  | { seq: number; type: 'times'; times: AnswerTimes };

/** When a group's requests were answered since the last reset (Unix ms): 2xx to new webhooks, and 429s. */
export interface AnswerTimes {
  ok: number[];
  refused: number[];
}
