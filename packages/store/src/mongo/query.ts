import type { DeliveryStatus, Tenant } from '@wirehook/core';
import type { TenantFields } from './documents.ts';

/** The statuses a delivery still has work in; the `deliveries_due` index covers exactly these. */
export const OPEN_STATUSES: DeliveryStatus[] = ['pending', 'retrying'];

/** How long a point read or write by _id (a lease's take, a shared count's write) may run on the server. */
export const POINT_OP_MS = 5_000;

/** The filter fields that scope a query to `t`; every query on a tenant-owned collection starts from these. */
export function scope(t: Tenant): TenantFields {
  return { orgId: t.orgId, env: t.env };
}

/**
 * `limit` when it is a non-negative integer. MongoDB reads a limit of 0 as "no limit", so
 * callers return nothing for 0 themselves.
 * @throws RangeError otherwise.
 */
export function checkedLimit(limit: number, what = 'page limit'): number {
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`${what} must be a non-negative integer, got ${limit}`);
  return limit;
}

/** A read of several operations ran past the time it was given, before its next operation (readDeadline). */
export class ReadDeadlineError extends Error {
  override readonly name = 'ReadDeadlineError';
}

/**
 * A read of several operations given `budgetMs` in all: the function answers each next
 * operation's `maxTimeMS`, what is left to `deadline` (a performance.now() time), so that
 * operations run one after another or at once end by it together.
 * The function @throws ReadDeadlineError once nothing is left (0 would mean no limit to the server).
 */
export function readDeadline(what: string, budgetMs: number, deadline = performance.now() + budgetMs): () => number {
  return () => {
    const left = Math.ceil(deadline - performance.now());
    if (left <= 0) throw new ReadDeadlineError(`${what} ran past its ${budgetMs} ms`);
    return left;
  };
}
