import type { BenchContext } from '../context.ts';
import type { RunRecord, ScenarioResult } from '../report/records.ts';
import { type BenchSettings, FANOUT_ENDPOINTS } from '../settings.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { type MeasuredPhase, measureDeliveries } from './delivery-run.ts';

/**
 * Fan-out: each message to a consumer with 20 endpoints; deliveries per second. Warmed first, as
 * e2e is, right before its runs: its first run paid for fan-out's own paths compiling (and the
 * process's idle span through the floors' scenarios), the slowest of the three in 17 of 23 full
 * runs and the costliest a delivery in 20, so its median was the slower of two warm runs where
 * e2e's, which it is compared with, is the middle of three.
 */
export async function runFanout(ctx: BenchContext): Promise<ScenarioResult> {
  const { record: warming } = await fanoutRun(ctx, 'fanoutwarming', fanoutWarmingMessages(ctx.settings));
  ctx.log(`fan-out warming: ${warming.perSecond} deliveries/s at ${warming.wirehookCpuUs} µs a delivery`);
  const runs: RunRecord[] = [];
  for (let run = 1; run <= ctx.settings.runs; run++) {
    const { record } = await fanoutRun(ctx, `fanout${run}`, ctx.settings.fanout.messages);
    ctx.log(`fan-out run ${run}: ${record.perSecond} deliveries/s`);
    runs.push(record);
  }
  return { name: 'fanout', deliveriesPerMessage: FANOUT_ENDPOINTS, description: `1 message → ${FANOUT_ENDPOINTS} endpoints`, runs, warming };
}

/** Fan-out's warming: as many deliveries as e2e's warming (`settings.e2e.warming`), a twentieth of its messages. */
export function fanoutWarmingMessages(settings: Pick<BenchSettings, 'e2e'>): number {
  return Math.ceil(settings.e2e.warming / FANOUT_ENDPOINTS);
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
