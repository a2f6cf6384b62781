/** What a transformation's `handler(webhook)` is given: the webhook about to be sent. */
export interface TransformInput {
  event_type: string;
  /** The message's payload (any JSON). */
  payload: unknown;
  /** The headers the caller would send besides its own (the endpoint's custom headers). */
  headers: Record<string, string>;
  /** The endpoint's URL. */
  url: string;
}

/**
 * What a run came to, as plain data. `ok: true` with `cancel: true`: the code asked for the
 * webhook not to be sent. `ok: true` with `cancel: false`: what the code returned, normalised —
 * `payload` as JSON.stringify made it, `headers` and `url` as returned (the input's when the
 * code left them out); the caller still applies its URL rules and header denylist. `ok: false`:
 * `error` is `transformation: <what went wrong>`, ending in `(line L, column C)` when a place
 * in the code is known.
 */
export type TransformResult =
  | { ok: true; cancel: true }
  | { ok: true; cancel: false; payload: unknown; headers: Record<string, string>; url: string }
  | { ok: false; error: string };

/** A run's limits, as a sandbox thread applies them. */
export interface SandboxLimits {
  /** The sandbox thread's CPU time from the start of the run (runtime creation included) to its result. */
  cpuBudgetMs: number;
  /** The run's heap: every object, string and buffer, the context itself and the input copied in. */
  memoryLimitBytes: number;
  /** QuickJS's own stack limit: deep recursion fails as an InternalError before the thread's stack runs out. */
  stackLimitBytes: number;
}
