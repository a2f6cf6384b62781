import {
  DEFAULT_STATS_WINDOW,
  STATS_WINDOW_SHAPES,
  statsWindowSpan,
  summarizeEndpointStats,
  type Endpoint,
  type EndpointStats,
  type StatsWindow,
  type Tenant,
} from '@wirehook/core';
import type { Store } from '@wirehook/store';

/**
 * GET /v1/endpoints/{id}/stats's answer, before it is JSON: the window's rollup rows (at most
 * 168, however many attempts there were) and the endpoint's open deliveries, read at once
 * and summed (summarizeEndpointStats).
 */
export async function endpointStats(
  store: Pick<Store, 'endpointStats'>,
  t: Tenant,
  endpoint: Pick<Endpoint, 'id'>,
  now: number,
  window: StatsWindow = DEFAULT_STATS_WINDOW,
): Promise<EndpointStats> {
  const { from, to } = statsWindowSpan(window, now);
  const [rollups, pending] = await Promise.all([
    store.endpointStats.rollups(t, endpoint.id, STATS_WINDOW_SHAPES[window].grainMs, from, to),
    store.endpointStats.pending(t, endpoint.id),
  ]);
  return summarizeEndpointStats({ endpointId: endpoint.id, window, now, rollups, pending });
}
