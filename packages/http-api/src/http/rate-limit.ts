import type { NextFunction, Request, Response } from 'express';
import { PLANS, PORTAL_REQUESTS_PER_MINUTE, RateLimitedError } from '@wirehook/core';
import type { RateLimitDecision } from '@wirehook/kv';
import type { ApiDeps } from '../deps.ts';
import { authOf } from './auth.ts';

/**
 * Counts every authenticated request against its environment's per-minute budget (all
 * keys of the environment share it), sets the x-ratelimit-* headers, and answers 429
 * once the budget is spent. When the counter store (Redis) cannot be reached, requests
 * are let through uncounted — webhooks keep flowing; the outage is logged and counted in
 * `wirehook_rate_limit_unavailable_total` — rather than refused.
 */
export function rateLimit(deps: Pick<ApiDeps, 'rateLimiter' | 'metrics' | 'logger' | 'clock'>) {
  return async (_req: Request, res: Response, next: NextFunction) => {
    const { tenant, org, consumerId } = authOf(res);
    // A portal link counts against its own consumer's budget: one customer's page (or script)
    // must not spend the sender's API budget.
    const limit = consumerId === null ? PLANS[org.plan].requestsPerMinute : PORTAL_REQUESTS_PER_MINUTE;
    const key = consumerId === null ? `${tenant.orgId}:${tenant.env}` : `${tenant.orgId}:${tenant.env}:portal:${consumerId}`;
    let verdict: RateLimitDecision;
    try {
      verdict = await deps.rateLimiter.hit(key, limit);
    } catch (err) {
      deps.metrics.rateLimitUnavailable.inc();
      deps.logger.warn({ err: (err as Error).message }, 'rate limit store unreachable; request let through uncounted');
      const resetSeconds = Math.floor(deps.clock.now() / 60_000) * 60 + 60;
      verdict = { limit, remaining: limit, resetSeconds, allowed: true, retryAfterSeconds: 0 };
    }
    res.set({
      'x-ratelimit-limit': String(verdict.limit),
      'x-ratelimit-remaining': String(verdict.remaining),
      'x-ratelimit-reset': String(verdict.resetSeconds),
    });
    if (!verdict.allowed) {
      deps.metrics.rateLimited.inc();
      const whose = consumerId === null ? 'this environment' : "this portal link's customer";
      throw new RateLimitedError(
        `rate limit of ${verdict.limit} requests per minute for ${whose} reached; retry in ${verdict.retryAfterSeconds} s`,
        verdict.retryAfterSeconds,
      );
    }
    next();
  };
}
