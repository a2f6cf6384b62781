// The bench names the runs that other work on the machine disturbed (the rest of it over 15 % of a
// core), so that a run made beside a test suite is not read as Wirehook's figures.
import { describe, expect, it } from 'vitest';
import { buildReport, machineInfo } from '../../bench/report/report.ts';
import { disturbedRuns, QUIET_OTHERS_PERCENT, QUIET_STEAL_PERCENT, quietLine } from '../../bench/report/quiet-machine.ts';
import { emptyRecord, type RunRecord, type ScenarioResult } from '../../bench/report/records.ts';
import { renderReport } from '../../bench/report/table.ts';
import { settingsFor } from '../../bench/settings.ts';

const run = (others: number, steal = 0): RunRecord => ({ ...emptyRecord(), cpu: { wirehook: 100, receiver: 10, harness: 20, others, steal } });

function scenario(name: ScenarioResult['name'], others: number[], over: Partial<ScenarioResult> = {}): ScenarioResult {
  return { name, deliveriesPerMessage: 1, description: name, runs: others.map((o) => run(o)), ...over };
}

describe('a quiet machine, as the bench report tells it', () => {
  it('takes 15 % of a core for the rest of the machine as quiet, and 16 % as disturbed, naming the run', () => {
    expect(QUIET_OTHERS_PERCENT).toBe(15);
    expect(disturbedRuns([scenario('e2e', [0, 15, 8])])).toEqual([]);
    expect(disturbedRuns([scenario('e2e', [0, 16, 8]), scenario('fanout', [82])])).toEqual([
      { scenario: 'e2e', label: 'run 2', othersPercent: 16, stealPercent: 0 },
      { scenario: 'fanout', label: 'run 1', othersPercent: 82, stealPercent: 0 },
    ]);
  });

  it("takes 5 % of a core taken by the hypervisor (steal) as quiet, and 6 % as disturbed: a neighbour the others' share can't see", () => {
    expect(QUIET_STEAL_PERCENT).toBe(5);
    const storm = (steal: number) => ({ name: 'storm' as const, deliveriesPerMessage: 1, description: 'storm', runs: [run(1, steal)] });
    expect(disturbedRuns([storm(5)])).toEqual([]);
    expect(disturbedRuns([storm(6)])).toEqual([{ scenario: 'storm', label: 'run 1', othersPercent: 1, stealPercent: 6 }]);
  });

  it("looks at the warming run and an A/B's B runs too, by the checks' names", () => {
    const ab = scenario('ab', [3], { warming: run(40), variant: { label: 'B', runs: [run(2), run(30)], warming: run(0) } });
    expect(disturbedRuns([ab]).map((d) => d.label)).toEqual(['warming', 'B run 2']);
  });

  it('prints a line either way in the report, and none for a report from before it was kept', () => {
    expect(quietLine([])).toBe('machine: quiet (in no run the rest of it over 15 % of a core, or steal over 5 %)');
    expect(quietLine([{ scenario: 'storm', label: 'run 1', othersPercent: 1, stealPercent: 9 }])).toBe(
      'machine: NOT QUIET (the rest of it over 15 % of a core, or steal over 5 %) ' +
        "in storm run 1 (others 1 %, steal 9 %): those figures do not compare with a quiet run's",
    );
    const report = buildReport({
      mode: 'full',
      launcher: 'embedded',
      startedAt: '2026-12-08T00:00:00.000Z',
      durationSeconds: 1,
      machine: machineInfo(0),
      settings: settingsFor('full', 2),
      results: [scenario('e2e', [2]), scenario('threaded-floor', [82])],
    });
    expect(report.disturbed).toEqual([{ scenario: 'threaded-floor', label: 'run 1', othersPercent: 82, stealPercent: 0 }]);
    expect(renderReport(report)).toContain('in threaded-floor run 1 (others 82 %, steal 0 %)');
    expect(renderReport({ ...report, disturbed: [] })).toContain('machine: quiet');
    const { disturbed: _, ...older } = report;
    expect(renderReport(older)).not.toContain('machine:');
  });
});
