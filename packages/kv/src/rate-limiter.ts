import type { Clock } from '@wirehook/core';
import type { Kv } from './kv.ts';

/** The outcome of one counted request, with what the rate-limit headers need. */
export interface RateLimitDecision {
  /** Requests allowed per minute (`x-ratelimit-limit`). */
  limit: number;
  /** Requests left in the current minute, never negative (`x-ratelimit-remaining`). */
  remaining: number;
  /** Unix seconds when the current minute window ends (`x-ratelimit-reset`). */
  resetSeconds: number;
  /** False once the count exceeds the limit: answer 429. */
  allowed: boolean;
  /** Seconds until the window ends, at least 1 (`retry-after` on a 429). */
  retryAfterSeconds: number;
}

/** Options for {@link RateLimiter}. */
export interface RateLimiterOptions {
  kv: Kv;
  clock: Clock;
}

const WINDOW_MS = 60_000;
// Longer than the window so a counter outlives its minute even when replicas' clocks
// differ a little; the minute in the key keeps windows apart.
const KEY_TTL_MS = WINDOW_MS + 10_000;

/**
 * Fixed one-minute windows aligned to the clock minute, counted in the Kv under
 * `rl:<bucket>:<minute since the epoch>`, so every replica sharing the Kv shares the count.
 */
export class RateLimiter {
  readonly #kv: Kv;
  readonly #clock: Clock;

  constructor(options: RateLimiterOptions) {
    this.#kv = options.kv;
    this.#clock = options.clock;
  }

  /**
   * Counts one request against `bucket` (e.g. the environment id) and says whether it
   * is within `limitPerMinute`. Rejects on a non-positive or fractional limit, an empty
   * bucket, or a Kv failure.
   */
  async hit(bucket: string, limitPerMinute: number): Promise<RateLimitDecision> {
    if (!Number.isSafeInteger(limitPerMinute) || limitPerMinute <= 0) {
      throw new RangeError(`rate limit must be a positive integer per minute, got ${limitPerMinute}`);
    }
    if (bucket === '') throw new RangeError('rate limit bucket must not be empty');
    const now = this.#clock.now();
    const windowStartMinute = Math.floor(now / WINDOW_MS);
    const windowEndMs = (windowStartMinute + 1) * WINDOW_MS;
    const count = await this.#kv.incr(`rl:${bucket}:${windowStartMinute}`, KEY_TTL_MS);
    return {
      limit: limitPerMinute,
      remaining: Math.max(0, limitPerMinute - count),
      resetSeconds: windowEndMs / 1000,
      allowed: count <= limitPerMinute,
      retryAfterSeconds: Math.max(1, Math.ceil((windowEndMs - now) / 1000)),
    };
  }
}
