import type { RunRecord, ScenarioName, ScenarioResult } from './records.ts';

/**
 * The most of a core the rest of the machine (neither Wirehook, the receiver nor the harness) may
 * use in a run for its figures to compare with another run's: at most 15 % in 1,079 of the 1,086
 * runs of the full runs since 2026-12-04 (at most 8 % in 1,033); a test suite beside the bench took
 * 44–95 % of a core in single runs and moved fan-out, the storm and the floors by a third
 * (docs/benchmarks.md, sixty-fourth session). In an A/B the idle side's Wirehook and the control
 * servers count here too (4–13 % in the sixty-fourth session's).
 */
export const QUIET_OTHERS_PERCENT = 15;
/**
 * The most of a core the hypervisor may take from the machine (steal) in such a run: at most 3 % in
 * 1,079 of those 1,086 runs, 4–5 % in 3, and 9–14 % in 4, all in the two slowest hours' full runs
 * (the storm then 73 %, its only miss). A neighbour outside the machine, which `others` cannot see.
 */
export const QUIET_STEAL_PERCENT = 5;

/** A run in which the rest of the machine, or the hypervisor, took more than the quiet bounds. */
export interface DisturbedRun {
  scenario: ScenarioName;
  /** As the checks name it: `run 2`, `paced`, `warming`, `B run 1`, `B warming`. */
  label: string;
  /** The rest of the machine's CPU over the run, % of one core. */
  othersPercent: number;
  /** The CPU the hypervisor took from the machine over the run, % of one core. */
  stealPercent: number;
}

/** A scenario's runs with the names the report gives them, in its order: the measured runs, the paced, the warming, an A/B's B runs and B's warming. */
export function labelledRuns(result: ScenarioResult): (readonly [RunRecord, string])[] {
  return [
    ...result.runs.map((r, i) => [r, `run ${i + 1}`] as const),
    ...(result.paced ? [[result.paced, 'paced'] as const] : []),
    ...(result.warming ? [[result.warming, 'warming'] as const] : []),
    ...(result.variant?.runs.map((r, i) => [r, `B run ${i + 1}`] as const) ?? []),
    ...(result.variant ? [[result.variant.warming, 'B warming'] as const] : []),
  ];
}

/** The runs other work disturbed, on the machine or beside it: their figures say more about that work than about Wirehook. */
export function disturbedRuns(results: readonly ScenarioResult[]): DisturbedRun[] {
  return results.flatMap((result) =>
    labelledRuns(result)
      .filter(([r]) => r.cpu.others > QUIET_OTHERS_PERCENT || r.cpu.steal > QUIET_STEAL_PERCENT)
      .map(([r, label]) => ({ scenario: result.name, label, othersPercent: r.cpu.others, stealPercent: r.cpu.steal })),
  );
}

/** The report's line on it: quiet, or which runs were not and by how much. */
export function quietLine(disturbed: readonly DisturbedRun[]): string {
  const bounds = `the rest of it over ${QUIET_OTHERS_PERCENT} % of a core, or steal over ${QUIET_STEAL_PERCENT} %`;
  if (disturbed.length === 0) return `machine: quiet (in no run ${bounds})`;
  const runs = disturbed.map((d) => `${d.scenario} ${d.label} (others ${d.othersPercent} %, steal ${d.stealPercent} %)`).join(', ');
  return `machine: NOT QUIET (${bounds}) in ${runs}: those figures do not compare with a quiet run's`;
}
