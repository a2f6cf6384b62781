import type { BenchContext } from '../context.ts';
import { ProbePair } from '../load/probe-pair.ts';
import type { RunRecord, ScenarioResult } from '../report/records.ts';
import { FANOUT_ENDPOINTS } from '../settings.ts';
import type { MeasuredPhase } from './delivery-run.ts';
import { e2eRun } from './e2e.ts';
import { fanoutRun, fanoutWarmingMessages } from './fanout.ts';

/** One run of the A/B's scenario, and its warming's size: the same deliveries as e2e's warming either way. */
interface AbRuns {
  run(ctx: BenchContext, name: string, warming: boolean): Promise<MeasuredPhase>;
  deliveriesPerMessage: number;
}

/** What an A/B's pairs run: e2e (the default), or fan-out (`--ab-scenario fanout`). */
const AB_RUNS = {
  e2e: {
    run: (ctx, name, warming) => e2eRun(ctx, name, warming ? ctx.settings.e2e.warming : ctx.settings.e2e.count),
    deliveriesPerMessage: 1,
  },
  fanout: {
    run: (ctx, name, warming) => fanoutRun(ctx, name, warming ? fanoutWarmingMessages(ctx.settings) : ctx.settings.fanout.messages),
    deliveriesPerMessage: FANOUT_ENDPOINTS,
  },
} satisfies Record<string, AbRuns>;

export type AbScenario = keyof typeof AB_RUNS;
export const AB_SCENARIOS = Object.keys(AB_RUNS) as AbScenario[];

/**
 * e2e (or fan-out, `--ab-scenario fanout`) as an alternated A/B in one bench run (issue 46). On this machine a run's CPU a delivery
 * moves by a tenth or more between runs minutes apart (the hypervisor's load), so a change of a
 * few per cent measured in two bench runs is lost in it. Here `a` is the Wirehook the bench
 * launched and `b` one launched beside it (`--ab-env`, `--ab-root`: main.ts); both stay up and
 * only the one being measured gets load. Each is warmed first (`settings.e2e.warming`), then
 * `settings.runs` pairs run back to back, A B, B A, A B, … so that neither always goes first.
 * Runs `--only ab` alone: A is as fresh as B.
 * What to read is each pair's B ÷ A (report.ts, `ab.cpuRatio`): its two runs share the
 * machine's state of the moment. An A/A (the same tree and settings on both sides) measures the
 * method's own spread. Each side has its API probe and control (ProbePair) going throughout, so
 * a change meant for the API's priority is read the same way: each pair's B ÷ A of the probe's
 * p99 while delivering, and of that p99 over its control's in the same span (`ab.probeRatio`,
 * `ab.probeExcessRatio`). The idle side's probe (50 a second) is load on the machine for both
 * sides alike.
 */
export async function runAb(a: BenchContext, b: BenchContext, label: string, scenario: AbScenario = 'e2e'): Promise<ScenarioResult> {
  return ProbePair.around(a, 'ab A', (probesA) => ProbePair.around(b, 'ab B', (probesB) => abPairs(a, b, label, scenario, { a: probesA, b: probesB })));
}

async function abPairs(a: BenchContext, b: BenchContext, label: string, scenario: AbScenario, probes: { a: ProbePair; b: ProbePair }): Promise<ScenarioResult> {
  const runs = AB_RUNS[scenario];
  await Promise.all([probes.a.measureIdle(a.settings.e2e.probeIdleMs), probes.b.measureIdle(a.settings.e2e.probeIdleMs)]);
  const warm = async (ctx: BenchContext, side: 'a' | 'b') => {
    const { record } = await runs.run(ctx, `ab${side}warming`, true);
    a.log(`ab ${side.toUpperCase()} warming: ${record.perSecond}/s at ${record.wirehookCpuUs} µs a delivery`);
    return record;
  };
  const warming = await warm(a, 'a');
  const variantWarming = await warm(b, 'b');
  // A sat idle through B's warming, and a process idle for seconds pays again in its next run
  // (docs/benchmarks.md): one run of A, not measured, so that pair 1 starts as every pair does —
  // its first side having just run, its second idle for the two runs before its own.
  await runs.run(a, 'abarewarm', false);
  const measured: RunRecord[] = [];
  const variantRuns: RunRecord[] = [];
  for (let pair = 1; pair <= a.settings.runs; pair++) {
    for (const side of pair % 2 === 1 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
      const { record, startedAt } = await runs.run(side === 'a' ? a : b, `ab${side}${pair}`, false);
      const { figures, summary } = await probes[side].measure(startedAt, startedAt + record.seconds * 1000);
      Object.assign(record.extra, figures);
      (side === 'a' ? measured : variantRuns).push(record);
      a.log(`ab pair ${pair}, ${side.toUpperCase()}: ${record.perSecond}/s at ${record.wirehookCpuUs} µs a delivery; ${summary}`);
    }
  }
  return {
    name: 'ab',
    deliveriesPerMessage: runs.deliveriesPerMessage,
    description: `${scenario} alternated: A (this checkout) against B (${label})`,
    runs: measured,
    warming,
    variant: { label, runs: variantRuns, warming: variantWarming },
  };
}
