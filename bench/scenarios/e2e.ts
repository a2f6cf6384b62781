import type { BenchContext } from '../context.ts';
import type { RunRecord, ScenarioResult } from '../report/records.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { groupRate, measureDeliveries } from './delivery-run.ts';

/** The half of the e2e endpoints whose rate the failure storm compares against. */
export const E2E_HALF = 'e2e.a';

/**
 * End to end: messages at the bench's concurrency, one endpoint each, spread over
 * `consumers` consumers; deliveries per second from the first send to the last
 * signature-valid receipt, and accept→receive latency. Also the rate of the even half of
 * the endpoints (`halfPerSecond`), the failure storm's reference.
 */
export async function runE2e(ctx: BenchContext): Promise<ScenarioResult> {
  const { settings } = ctx;
  const runs: RunRecord[] = [];
  for (let run = 1; run <= settings.runs; run++) {
    const topology = await buildTopology(ctx, {
      name: `e2e${run}`,
      consumers: settings.e2e.consumers,
      endpointsPerConsumer: 1,
      group: (c) => (c % 2 === 0 ? E2E_HALF : 'e2e.b'),
    });
    const phase = await measureDeliveries(ctx, topology.targets, settings.e2e.warmup, settings.e2e.count);
    await removeEndpoints(ctx, topology.endpoints);
    phase.record.extra['halfPerSecond'] = groupRate(phase.stats.groups[E2E_HALF], phase.startedAt);
    const { record } = phase;
    ctx.log(`e2e run ${run}: ${record.perSecond}/s, p50 ${record.latencyMs?.p50} ms, p99 ${record.latencyMs?.p99} ms`);
    runs.push(record);
  }
  return { name: 'e2e', deliveriesPerMessage: 1, description: 'accept → signature-valid receipt, 1 endpoint per message', runs };
}
