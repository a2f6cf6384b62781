import type { RunRecord, ScenarioName, ScenarioResult } from './records.ts';

/**
 * The most of a core the rest of the machine (neither Wirehook, the receiver nor the harness) may
 * use in a run for its figures to compare with another run's. Quiet runs here measure 0–8 %; a
 * test suite or a build beside the bench measured 25–82 % and moved fan-out, the storm and the
 * floors by a third (docs/benchmarks.md, sixty-fourth session).
 */
export const QUIET_OTHERS_PERCENT = 15;
/**
 * The most of a core the hypervisor may take from the machine (steal) in such a run: 0–3 % in 870
 * of 895 runs of the full runs since 2026-12-04, 8–14 % in the rest, all in the two slowest
 * hours' runs (the storm then 73 %, its only miss). A neighbour outside the machine, which
 * `others` cannot see.
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
