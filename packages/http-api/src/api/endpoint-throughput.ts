// An endpoint's throughput now (#32) for GET /v1/endpoints/{id}: its rate limit and Retry-After
// hold from the store, its sends in flight and adaptive limit from the Kv the dispatchers share.
import type { Endpoint } from '@wirehook/core';
import type { ThroughputSnapshot } from '@wirehook/kv';
import type { ApiDeps } from '../deps.ts';

/** The `throughput` object of an endpoint's detail. */
export interface ThroughputJson {
  rate_limit: number | null;
  concurrency: number | null;
  in_flight: number;
  held_until: number | null;
}

/**
 * What the dispatchers share of `endpointId` at `now`. The Kv failing (Redis down) is no
 * reason to fail the endpoint's page: it then reports nothing in flight and no cut.
 */
export async function throughputNow(deps: Pick<ApiDeps, 'throughput' | 'logger'>, endpointId: string, now: number): Promise<ThroughputSnapshot> {
  if (deps.throughput === undefined) return { concurrency: null, inFlight: 0 };
  try {
    return await deps.throughput.snapshot(endpointId, now);
  } catch (err) {
    deps.logger.warn({ err, endpointId }, 'endpoint throughput unreadable (Kv); shown as none');
    return { concurrency: null, inFlight: 0 };
  }
}

/** The `throughput` object: a hold that has ended reads as null. */
export function throughputJson(endpoint: Endpoint, flow: ThroughputSnapshot, now: number): ThroughputJson {
  const held = endpoint.heldUntil ?? null;
  return {
    rate_limit: endpoint.rateLimit ?? null,
    concurrency: flow.concurrency,
    in_flight: flow.inFlight,
    held_until: held !== null && held > now ? held : null,
  };
}
