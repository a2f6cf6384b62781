/** The environment's rate-limit state as of one answer (its `x-ratelimit-*` headers). */
export interface RateLimit {
  /** Requests per minute allowed for the environment, all its keys together. */
  limit: number;
  /** Requests left in the current minute. */
  remaining: number;
  /** When the current minute ends, in Unix **seconds** (as the header gives it). */
  reset: number;
}

/** The rate-limit headers of an answer, or undefined when it has none (e.g. a 401). */
export function readRateLimit(headers: Headers): RateLimit | undefined {
  const limit = integerHeader(headers, 'x-ratelimit-limit');
  const remaining = integerHeader(headers, 'x-ratelimit-remaining');
  const reset = integerHeader(headers, 'x-ratelimit-reset');
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  return { limit, remaining, reset };
}

/** A header holding a non-negative integer, or undefined when absent or malformed. */
export function integerHeader(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name)?.trim();
  if (!raw || !/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}
