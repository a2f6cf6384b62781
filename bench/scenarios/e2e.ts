import type { BenchContext } from '../context.ts';
import type { RunRecord, ScenarioResult } from '../report/records.ts';
import { ProbePair } from '../load/probe-pair.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { median } from '../report/stats.ts';
import { groupRate, measureDeliveries, type MeasuredPhase } from './delivery-run.ts';

/** The half of the e2e endpoints whose rate the failure storm compares against. */
export const E2E_HALF = 'e2e.a';

/**
 * End to end: messages at the bench's concurrency, one endpoint each, spread over
 * `consumers` consumers; deliveries per second from the first send to the last
 * signature-valid receipt, and accept→receive latency. Also the rate of the even half of
 * the endpoints (`halfPerSecond`), the failure storm's reference. Then one paced run at
 * half the median rate: accept→receive latency when Wirehook is not saturated (in a closed
 * loop, latency mostly measures the queue that saturation builds).
 */
export async function runE2e(ctx: BenchContext): Promise<ScenarioResult> {
  const { runs, warming } = await e2eRuns(ctx, 'e2e');
  const rate = median(runs.map((r) => r.perSecond)) ?? 0;
  const perSecond = Math.max(1, Math.round(rate * PACED_SHARE));
  const { record: paced } = await e2eRun(ctx, 'e2epaced', ctx.settings.e2e.pacedCount, perSecond);
  paced.extra['offeredPerSecond'] = perSecond;
  ctx.log(`e2e paced at ${perSecond}/s: p50 ${paced.latencyMs?.p50} ms, p99 ${paced.latencyMs?.p99} ms`);
  return { name: 'e2e', deliveriesPerMessage: 1, description: 'accept → signature-valid receipt, 1 endpoint per message', runs, paced, warming };
}

/**
 * The closed-loop e2e runs (`settings.runs` of them), each on endpoints of its own. Beside the
 * measured runs the API probe and its control (ProbePair): their p99s with Wirehook idle first,
 * then during each run (from the first send to the last receipt). Between the two, a warming run
 * of `settings.e2e.warming` messages (kept apart: records.ts).
 */
export async function e2eRuns(ctx: BenchContext, label: string): Promise<{ runs: RunRecord[]; warming: RunRecord }> {
  let warming: RunRecord | undefined;
  const runs = await ProbePair.around(ctx, label, async (probes) => {
    await probes.measureIdle(ctx.settings.e2e.probeIdleMs);
    // After the idle probes, right before the runs: a process idle for seconds gives back memory
    // (V8 shrinks its young generation) and its first run after pays again (591 µs against 534 warming).
    ({ record: warming } = await e2eRun(ctx, `${label}warming`, ctx.settings.e2e.warming));
    ctx.log(`${label} warming: ${warming.perSecond}/s at ${warming.wirehookCpuUs} µs a delivery`);
    const runs: RunRecord[] = [];
    for (let run = 1; run <= ctx.settings.runs; run++) {
      const { record, startedAt } = await e2eRun(ctx, `${label}${run}`, ctx.settings.e2e.count);
      const { figures, summary } = await probes.measure(startedAt, startedAt + record.seconds * 1000);
      Object.assign(record.extra, figures);
      ctx.log(`${label} run ${run}: ${record.perSecond}/s, p50 ${record.latencyMs?.p50} ms, p99 ${record.latencyMs?.p99} ms; ${summary}`);
      runs.push(record);
    }
    return runs;
  });
  return { runs, warming: warming! };
}

/** Share of the measured e2e rate the paced run offers. */
export const PACED_SHARE = 0.5;

/** One e2e run on endpoints of its own: e2e's warm-up, then `count` messages (paced at `perSecond` when given). */
export async function e2eRun(ctx: BenchContext, name: string, count: number, perSecond?: number): Promise<MeasuredPhase> {
  const topology = await buildTopology(ctx, {
    name,
    consumers: ctx.settings.e2e.consumers,
    endpointsPerConsumer: 1,
    group: (c) => (c % 2 === 0 ? E2E_HALF : 'e2e.b'),
  });
  const phase = await measureDeliveries(ctx, topology.targets, { warmup: ctx.settings.e2e.warmup, count, perSecond });
  await removeEndpoints(ctx, topology.endpoints);
  phase.record.extra['halfPerSecond'] = groupRate(phase.stats.groups[E2E_HALF], phase.startedAt);
  return phase;
}
