import type { BenchContext } from '../context.ts';
import type { RunRecord, ScenarioResult } from '../report/records.ts';
import { FANOUT_ENDPOINTS } from '../settings.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { type MeasuredPhase, measureDeliveries } from './delivery-run.ts';

/** Fan-out: each message to a consumer with 20 endpoints; deliveries per second. */
export async function runFanout(ctx: BenchContext): Promise<ScenarioResult> {
  const runs: RunRecord[] = [];
  for (let run = 1; run <= ctx.settings.runs; run++) {
    const { record } = await fanoutRun(ctx, `fanout${run}`, ctx.settings.fanout.messages);
    ctx.log(`fan-out run ${run}: ${record.perSecond} deliveries/s`);
    runs.push(record);
  }
  return { name: 'fanout', deliveriesPerMessage: FANOUT_ENDPOINTS, description: `1 message → ${FANOUT_ENDPOINTS} endpoints`, runs };
}

/** One fan-out run on endpoints of its own: fan-out's warm-up, then `messages` messages of FANOUT_ENDPOINTS deliveries each. */
export async function fanoutRun(ctx: BenchContext, name: string, messages: number): Promise<MeasuredPhase> {
  const topology = await buildTopology(ctx, {
    name,
    consumers: ctx.settings.fanout.consumers,
    endpointsPerConsumer: FANOUT_ENDPOINTS,
    group: () => 'fanout',
  });
  const phase = await measureDeliveries(ctx, topology.targets, { warmup: ctx.settings.fanout.warmup, count: messages });
  await removeEndpoints(ctx, topology.endpoints);
  return phase;
}
