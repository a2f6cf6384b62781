import type { RunRecord, ScenarioName, ScenarioResult } from './records.ts';

/**
 * The most of a core the rest of the machine (neither Wirehook, the receiver nor the harness) may
 * use in a run for its figures to compare with another run's. Quiet runs here measure 0–8 %; a
 * test suite or a build beside the bench measured 25–82 % and moved fan-out, the storm and the
 * floors by a third (docs/benchmarks.md, sixty-fourth session).
 */
export const QUIET_OTHERS_PERCENT = 15;

/** A run in which the rest of the machine used more than QUIET_OTHERS_PERCENT of a core. */
export interface DisturbedRun {
  scenario: ScenarioName;
  /** As the checks name it: `run 2`, `paced`, `warming`, `B run 1`, `B warming`. */
  label: string;
  /** The rest of the machine's CPU over the run, % of one core. */
  othersPercent: number;
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

/** The runs other work on the machine disturbed: their figures say more about that work than about Wirehook. */
export function disturbedRuns(results: readonly ScenarioResult[]): DisturbedRun[] {
  return results.flatMap((result) =>
    labelledRuns(result)
      .filter(([r]) => r.cpu.others > QUIET_OTHERS_PERCENT)
      .map(([r, label]) => ({ scenario: result.name, label, othersPercent: r.cpu.others })),
  );
}

/** The report's line on it: quiet, or which runs were not and by how much. */
export function quietLine(disturbed: readonly DisturbedRun[]): string {
  if (disturbed.length === 0) return `machine: quiet (the rest of it used at most ${QUIET_OTHERS_PERCENT} % of a core in every run)`;
  const runs = disturbed.map((d) => `${d.scenario} ${d.label} ${d.othersPercent} %`).join(', ');
  return `machine: NOT QUIET — the rest of it used more than ${QUIET_OTHERS_PERCENT} % of a core in ${runs}: those figures do not compare with a quiet run's`;
}
