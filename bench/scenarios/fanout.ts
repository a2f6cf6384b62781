import type { BenchContext } from '../context.ts';
import type { RunRecord, ScenarioResult } from '../report/records.ts';
import { FANOUT_ENDPOINTS } from '../settings.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { measureDeliveries } from './delivery-run.ts';

/** Fan-out: each message to a consumer with 20 endpoints; deliveries per second. */
export async function runFanout(ctx: BenchContext): Promise<ScenarioResult> {
  const { settings } = ctx;
  const runs: RunRecord[] = [];
  for (let run = 1; run <= settings.runs; run++) {
    const topology = await buildTopology(ctx, {
      name: `fanout${run}`,
      consumers: settings.fanout.consumers,
      endpointsPerConsumer: FANOUT_ENDPOINTS,
      group: () => 'fanout',
    });
    const { record } = await measureDeliveries(ctx, topology.targets, { warmup: settings.fanout.warmup, count: settings.fanout.messages });
    await removeEndpoints(ctx, topology.endpoints);
    ctx.log(`fan-out run ${run}: ${record.perSecond} deliveries/s`);
    runs.push(record);
  }
  return { name: 'fanout', deliveriesPerMessage: FANOUT_ENDPOINTS, description: `1 message → ${FANOUT_ENDPOINTS} endpoints`, runs };
}
