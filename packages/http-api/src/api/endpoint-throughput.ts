// An endpoint's throughput now for GET /v1/endpoints/{id}: its rate limit and Retry-After
// hold from the store, its sends in flight and adaptive limit from the Kv the dispatchers share.
import type { ThroughputSnapshot } from '@wirehook/kv';
import type { ApiDeps } from '../deps.ts';

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
