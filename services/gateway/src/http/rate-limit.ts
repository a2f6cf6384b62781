import type { NextFunction, Request, Response } from 'express';
import { PLANS, RateLimitedError } from '@wirehook/core';
import type { GatewayDeps } from '../deps.ts';
import { authOf } from './auth.ts';

/**
 * Counts every authenticated request against its environment's per-minute budget (all
 * keys of the environment share it), sets the x-ratelimit-* headers, and answers 429
 * once the budget is spent.
 */
export function rateLimit(deps: Pick<GatewayDeps, 'rateLimiter' | 'metrics'>) {
  return async (_req: Request, res: Response, next: NextFunction) => {
    const { tenant, org } = authOf(res);
    const verdict = await deps.rateLimiter.hit(`${tenant.orgId}:${tenant.env}`, PLANS[org.plan].requestsPerMinute);
    res.set({
      'x-ratelimit-limit': String(verdict.limit),
      'x-ratelimit-remaining': String(verdict.remaining),
      'x-ratelimit-reset': String(verdict.resetSeconds),
    });
    if (!verdict.allowed) {
      deps.metrics.rateLimited.inc();
      throw new RateLimitedError(
        `rate limit of ${verdict.limit} requests per minute for this environment reached; retry in ${verdict.retryAfterSeconds} s`,
        verdict.retryAfterSeconds,
      );
    }
    next();
  };
}
