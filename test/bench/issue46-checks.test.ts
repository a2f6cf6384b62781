// The report's checks of issue 46's bounds, on both sides of each: e2e's CPU a delivery (≤ 300
// µs, shown over the pipeline floor), cluster mode's over all its processes (≤ 650 µs), and the
// API probe's rise against twice its control's (a control that fell under load counts as 1 ×).
import { describe, expect, it } from 'vitest';
import { abFigures, clusterFigures, clusterFloorFigures, e2eFigures, floorFigures, threadedFloorFigures } from '../../bench/report/delivery-figures.ts';
import { figuresOf } from '../../bench/report/figures.ts';
import { type BacklogSample, backlogGrowthPercent } from '../../bench/report/backlog-growth.ts';
import { paceFigures } from '../../bench/report/pace-figures.ts';
import type { Figure } from '../../bench/report/figure.ts';
import { type Medians, variantMedians } from '../../bench/report/medians.ts';
import { emptyRecord, type RunRecord } from '../../bench/report/records.ts';
import { probeFigures } from '../../bench/report/probe-figures.ts';
import { medianInterval } from '../../bench/report/stats.ts';

function medians(over: Partial<Medians>): Medians {
  return {
    perSecond: 1_000,
    seconds: 1,
    latencyP50: null,
    latencyP99: null,
    intakePerSecond: null,
    intakeP50: null,
    intakeP99: null,
    cpuWirehook: null,
    cpuReceiver: null,
    cpuHarness: null,
    cpuOthers: null,
    cpuSteal: null,
    wirehookCpuUs: null,
    wirehookCpuUsByPart: {},
    peakRssMb: null,
    runQueueMean: null,
    runQueueOverCpus: null,
    extra: {},
    ...over,
  };
}
function figure(figures: Figure[], id: string): Figure {
  const found = figures.find((f) => f.id === id);
  if (!found) throw new Error(`no figure ${id}`);
  return found;
}

describe('issue 46’s checks in the bench report', () => {
  it('e2e CPU a delivery: 300 µs passes, 301 does not; its check shows the ratio to the floor of the same run', () => {
    const floor = medians({ wirehookCpuUs: 150 });
    expect(figure(e2eFigures({ e2e: medians({ wirehookCpuUs: 300 }), floor }), 'e2e.cpu')).toMatchObject({ pass: true, checked: '2 × floor' });
    expect(figure(e2eFigures({ e2e: medians({ wirehookCpuUs: 301 }), floor }), 'e2e.cpu')).toMatchObject({ pass: false, checked: '2.01 × floor' });
    // Without the floor in the run: the bound alone.
    expect(figure(e2eFigures({ e2e: medians({ wirehookCpuUs: 301 }) }), 'e2e.cpu')).toMatchObject({ pass: false, checked: null });
    expect(figure(floorFigures({ e2e: medians({ wirehookCpuUs: 450 }), floor }), 'floor.cpu').checked).toBe('e2e 3 × this');
  });

  it('cluster CPU a delivery over all processes: 650 µs passes, 651 does not', () => {
    expect(figure(clusterFigures({ cluster: medians({ wirehookCpuUs: 650 }) }), 'cluster.cpu').pass).toBe(true);
    expect(figure(clusterFigures({ cluster: medians({ wirehookCpuUs: 651 }) }), 'cluster.cpu').pass).toBe(false);
  });

  it('cluster mode beside the cluster floor: its CPU as a multiple of the floor’s, the floors’ rates beside its own ratio', () => {
    const run = {
      floor: medians({ perSecond: 5_000, wirehookCpuUs: 200 }),
      'cluster-floor': medians({ perSecond: 3_500, wirehookCpuUs: 350 }),
      e2e: medians({ perSecond: 2_500 }),
      cluster: medians({ perSecond: 1_400, wirehookCpuUs: 1_050 }),
    };
    // Each bound is cluster mode's own, whatever the floors: 1,050 µs misses 650; 0.56 × embedded misses 0.8 ×.
    expect(figure(clusterFigures(run), 'cluster.cpu')).toMatchObject({ pass: false, checked: '3 × cluster floor' });
    expect(figure(clusterFigures(run), 'cluster.rate')).toMatchObject({ pass: false, checked: '0.56 × embedded (cluster floor 0.7 × floor)' });
    expect(figure(clusterFloorFigures(run), 'cluster-floor.rate').checked).toBe('0.7 × floor');
    expect(figure(clusterFloorFigures(run), 'cluster-floor.cpu').checked).toBe('1.75 × floor; cluster 3 × this');
    // Without the floors in the run: the bounds alone.
    expect(figure(clusterFigures({ e2e: run.e2e, cluster: run.cluster }), 'cluster.rate').checked).toBe('0.56 × embedded');
    expect(figure(clusterFigures({ e2e: run.e2e, cluster: run.cluster }), 'cluster.cpu').checked).toBeNull();
    expect(clusterFloorFigures({ floor: run.floor })).toEqual([]);
  });

  it('the threaded floor beside the pipeline floor and e2e; the cluster floor’s rate against it beside cluster mode’s', () => {
    const run = {
      floor: medians({ perSecond: 4_000, wirehookCpuUs: 200 }),
      'threaded-floor': medians({ perSecond: 5_000, wirehookCpuUs: 250 }),
      'cluster-floor': medians({ perSecond: 3_000, wirehookCpuUs: 400 }),
      e2e: medians({ perSecond: 2_500, wirehookCpuUs: 500 }),
      cluster: medians({ perSecond: 1_500, wirehookCpuUs: 1_000 }),
    };
    expect(figure(threadedFloorFigures(run), 'threaded-floor.rate')).toMatchObject({ value: 5_000, checked: '1.25 × floor' });
    expect(figure(threadedFloorFigures(run), 'threaded-floor.cpu')).toMatchObject({ value: 250, checked: '1.25 × floor; e2e 2 × this' });
    expect(figure(clusterFigures(run), 'cluster.rate').checked).toBe('0.6 × embedded (cluster floor 0.75 × floor, 0.6 × threaded floor)');
    // Without the pipeline floor or e2e: what can be said.
    expect(figure(threadedFloorFigures({ 'threaded-floor': run['threaded-floor'] }), 'threaded-floor.cpu').checked).toBeNull();
    expect(figure(threadedFloorFigures({ 'threaded-floor': run['threaded-floor'] }), 'threaded-floor.rate').checked).toBeNull();
    expect(figure(threadedFloorFigures({ 'threaded-floor': run['threaded-floor'], floor: run.floor }), 'threaded-floor.cpu').checked).toBe('1.25 × floor');
    expect(figure(threadedFloorFigures({ 'threaded-floor': run['threaded-floor'], e2e: run.e2e }), 'threaded-floor.cpu').checked).toBe('e2e 2 × this');
    const { floor: _floor, ...noFloor } = run;
    expect(figure(clusterFigures(noFloor), 'cluster.rate').checked).toBe('0.6 × embedded (cluster floor 0.6 × threaded floor)');
    expect(threadedFloorFigures({ floor: run.floor })).toEqual([]);
  });

  it('256 senders: a backlog growing ≤ 3 % of accepted/s passes, or Wirehook at 1.7 of 2 cores; each verdict names the limit', () => {
    const pace = (backlogGrowthPercent: number, cpuWirehook: number, cpus = 2, cpuHarness = 20) =>
      figure(paceFigures({ pace: medians({ cpuWirehook, cpuReceiver: 15, cpuHarness, cpuOthers: 0, extra: { backlogGrowthPercent, cpus } }) }), 'pace.kept');
    expect(pace(3, 124)).toMatchObject({ pass: true, value: 3, checked: '3 %, Wirehook 1.24 of 2 cores (all 1.59): delivery keeps pace' });
    expect(pace(3.1, 124)).toMatchObject({ pass: false, checked: '3.1 %, Wirehook 1.24 of 2 cores (all 1.59): a backlog grows with cores to spare' });
    // The machine full beside Wirehook (the harness and the receiver): still a miss, said as such.
    expect(pace(12, 124, 2, 40)).toMatchObject({
      pass: false,
      checked: '12 %, Wirehook 1.24 of 2 cores (all 1.79): a backlog grows, the machine busy beside Wirehook',
    });
    // A backlog grows, but Wirehook has the machine: the CPU names the limit.
    expect(pace(12, 170)).toMatchObject({ pass: true, checked: '12 %, Wirehook 1.7 of 2 cores (all 2.05): Wirehook has the cores: the CPU is the limit' });
    expect(pace(12, 169).pass).toBe(false);
    // The cores are the machine's: 1.7 of 4 is not most of it.
    expect(pace(12, 170, 4).pass).toBe(false);
    expect(pace(12, 340, 4).pass).toBe(true);
    // The growth not measured: no verdict, unless Wirehook had the cores anyway; others on the machine count in `all`.
    const unmeasured = (cpuWirehook: number) =>
      figure(paceFigures({ pace: medians({ cpuWirehook, cpuReceiver: 15, cpuHarness: 20, cpuOthers: 10, extra: { cpus: 2 } }) }), 'pace.kept');
    expect(unmeasured(124)).toMatchObject({ pass: null, checked: '? %, Wirehook 1.24 of 2 cores (all 1.69): the backlog not measured' });
    expect(unmeasured(170).pass).toBe(true);
    // And the other way: a growing backlog with no CPU reading is no verdict either.
    expect(figure(paceFigures({ pace: medians({ extra: { backlogGrowthPercent: 12, cpus: 2 } }) }), 'pace.kept')).toMatchObject({
      pass: null,
      checked: "12 %, Wirehook ? of 2 cores (all ?): a backlog grows, Wirehook's CPU not measured",
    });
    // Nothing measured, no verdict; no pace run, no figures.
    expect(figure(paceFigures({ pace: medians({}) }), 'pace.kept')).toMatchObject({ pass: null, value: null, checked: null });
    expect(paceFigures({ e2e: medians({}) })).toEqual([]);
  });

  it('the backlog’s growth: its slope after the ramp-up, over the accepted rate; a steady backlog reads 0 whatever its size', () => {
    // Readings every 200 ms over 5 s at 3,300 accepted a second; `backlog(t)` what is accepted and not yet delivered.
    const run = (backlog: (t: number) => number): BacklogSample[] =>
      Array.from({ length: 26 }, (_, i) => {
        const t = i * 0.2;
        const accepted = Math.round(3_300 * t);
        return { at: 1_000_000 + t * 1_000, accepted, delivered: accepted - backlog(t) };
      });
    // A few hundred in flight, up and down with the batches: no growth.
    expect(backlogGrowthPercent(run((t) => 400 + (Math.round(t * 5) % 2 === 0 ? 60 : -60)))).toBeCloseTo(0, 0);
    // Delivery at 88 % of intake (the 2,042 against 2,328): the backlog grows by 12 % of it.
    expect(backlogGrowthPercent(run((t) => Math.round(0.12 * 3_300 * t)))).toBeCloseTo(12, 1);
    // The ramp-up left out: a backlog that filled in the first second and then held reads as held.
    expect(backlogGrowthPercent(run((t) => Math.round(Math.min(t, 1) * 800)))).toBeCloseTo(0, 1);
    // The first quarter (1.25 s of 5) is what is left out: a ramp to 1.5 s leaves one reading of itself and reads 0.13 %
    // (a share of 0.2 would keep three and read 0.9 %).
    expect(Math.abs(backlogGrowthPercent(run((t) => Math.round((Math.min(t, 1.5) / 1.5) * 800)))!)).toBeLessThan(0.5);
    // A fit over every reading, not the first and last kept: one high first reading and one low last (±300) move it by
    // 1.4 %, where their difference over the span would read −5 %.
    const ends = run(() => 400).map((s, i) => (i === 7 ? { ...s, delivered: s.delivered - 300 } : i === 25 ? { ...s, delivered: s.delivered + 300 } : s));
    expect(Math.abs(backlogGrowthPercent(ends)!)).toBeLessThan(2);
    // Too few readings after the ramp-up, or nothing accepted among them: no figure.
    expect(backlogGrowthPercent(run(() => 0).slice(0, 4))).toBeNull();
    expect(backlogGrowthPercent([])).toBeNull();
    expect(backlogGrowthPercent(Array.from({ length: 8 }, (_, i) => ({ at: i * 200, accepted: 10, delivered: 10 })))).toBeNull();
  });

  it('the API probe: a rise of twice its control’s passes, more does not; a control that fell counts as 1 ×; none, no verdict', () => {
    const probe = (probeP99: number, control?: [number, number]) =>
      figure(
        probeFigures(
          'e2e',
          medians({ extra: { probeIdleP99: 2, probeP99, ...(control && { controlProbeIdleP99: control[0], controlProbeP99: control[1] }) } }),
          1,
        ),
        'e2e.probeP99',
      );
    // The control rose 3 ×: the probe may rise 6 ×.
    expect(probe(12, [1, 3])).toMatchObject({ pass: true, checked: '6 × idle (control 3 ×): 2 ×' });
    expect(probe(12.2, [1, 3])).toMatchObject({ pass: false, checked: '6.1 × idle (control 3 ×): 2.03 ×' });
    // The control fell under load (0.5 ×): the probe's rise is held to 2 ×, not to 1 ×.
    expect(probe(4, [2, 1])).toMatchObject({ pass: true, checked: '2 × idle (control 0.5 ×): 2 ×' });
    expect(probe(4.2, [2, 1]).pass).toBe(false);
    expect(probe(12)).toMatchObject({ pass: null, checked: '6 × idle' });
  });

  it('the warming run: its CPU a delivery once, after its scenario’s own figures, against the measured runs’; no target', () => {
    const warming = { sent: 32_000, delivered: 32_000, perSecond: 2_000, wirehookCpuUs: 571 };
    const figures = figuresOf({
      e2e: medians({ wirehookCpuUs: 457, warming }),
      floor: medians({ wirehookCpuUs: 200 }),
      cluster: medians({ wirehookCpuUs: 1_000, warming: { ...warming, wirehookCpuUs: 1_200 } }),
    });
    const ids = figures.map((f) => f.id);
    expect(ids.filter((id) => id.endsWith('.warmingCpu'))).toEqual(['e2e.warmingCpu', 'cluster.warmingCpu']);
    // Right after e2e's last figure, before the floor's first.
    const at = ids.indexOf('e2e.warmingCpu');
    expect(figures[at - 1]!.scenario).toBe('e2e');
    expect(figures[at + 1]!.scenario).toBe('floor');
    expect(figure(figures, 'e2e.warmingCpu')).toMatchObject({
      value: 571,
      measure: 'CPU per delivery while warming (32,000 messages first)',
      checked: "1.25 × the measured runs'",
      target: null,
      pass: null,
    });
    expect(figure(figures, 'cluster.warmingCpu').checked).toBe("1.2 × the measured runs'");
    // Fan-out's warming: as many deliveries as e2e's, a twentieth of its messages; the words say both.
    const fanout = figuresOf({ fanout: medians({ wirehookCpuUs: 300, warming: { sent: 2_400, delivered: 48_000, perSecond: 3_000, wirehookCpuUs: 390 } }) });
    expect(figure(fanout, 'fanout.warmingCpu').measure).toBe('CPU per delivery while warming (2,400 messages, 48,000 deliveries first)');
    // A scenario without a warming run has no such figure.
    expect(figuresOf({ e2e: medians({ wirehookCpuUs: 457 }) }).some((f) => f.id.endsWith('.warmingCpu'))).toBe(false);
  });

  it('the A/B: each pair’s B ÷ A in order (CPU, rate, the API probe), their median, each side’s median CPU; no target', () => {
    const run = (wirehookCpuUs: number, perSecond: number, probeP99 = 40, controlProbeP99 = 8): RunRecord => ({
      ...emptyRecord(),
      wirehookCpuUs,
      perSecond,
      extra: { probeP99, controlProbeP99 },
    });
    const a = [run(500, 2_000), run(600, 1_800, 30, 6), run(550, 1_900)];
    // B's second pair: its probe as A's, its control slower (the machine's moment, not B's doing).
    const b = [run(450, 2_100, 20, 8), run(600, 1_700, 30, 10), run(495, 2_000, 44, 8)];
    const variant = variantMedians(a, { label: 'env X=1', runs: b });
    expect(variant).toEqual({
      label: 'env X=1',
      wirehookCpuUs: 495,
      perSecond: 2_000,
      cpuRatios: [0.9, 1, 0.9],
      rateRatios: [1.05, 0.944, 1.053],
      probeRatios: [0.5, 1, 1.1],
      probeExcessRatios: [0.5, 0.6, 1.1],
    });
    const figures = abFigures({ ab: medians({ wirehookCpuUs: 550, variant }) });
    expect(figure(figures, 'ab.cpu').value).toBe(550);
    expect(figure(figures, 'ab.variantCpu')).toMatchObject({ value: 495, measure: 'B: Wirehook CPU per delivery (env X=1)' });
    expect(figure(figures, 'ab.cpuRatio')).toMatchObject({
      value: 0.9,
      checked: 'too few pairs for a 95 % interval (3); pairs 0.9, 1, 0.9',
      target: null,
      pass: null,
    });
    expect(figure(figures, 'ab.rateRatio')).toMatchObject({ value: 1.05, checked: 'too few pairs for a 95 % interval (3); pairs 1.05, 0.944, 1.053' });
    expect(figure(figures, 'ab.probeRatio')).toMatchObject({ value: 1, checked: 'too few pairs for a 95 % interval (3); pairs 0.5, 1, 1.1' });
    expect(figure(figures, 'ab.probeExcessRatio')).toMatchObject({ value: 0.6, checked: 'too few pairs for a 95 % interval (3); pairs 0.5, 0.6, 1.1' });
    // A run whose probes all went unanswered (no p99) leaves its pair out of the probe's ratios alone.
    const unanswered = variantMedians(a, { label: 'x', runs: [run(450, 2_100, Number.NaN, 8), ...b.slice(1)] });
    expect(unanswered).toMatchObject({ cpuRatios: [0.9, 1, 0.9], probeRatios: [1, 1.1], probeExcessRatios: [0.6, 1.1] });
    // So is one read back from a report, where JSON wrote that NaN as null (not a ratio of 0).
    const readBack = variantMedians(a, {
      label: 'x',
      runs: [{ ...b[0]!, extra: JSON.parse(JSON.stringify({ probeP99: Number.NaN, controlProbeP99: 8 })) }, ...b.slice(1)],
    });
    expect(readBack).toMatchObject({ probeRatios: [1, 1.1], probeExcessRatios: [0.6, 1.1] });
    // A pair whose B run is missing is left out; no B at all, no figures.
    expect(variantMedians(a, { label: 'x', runs: b.slice(0, 2) }).cpuRatios).toEqual([0.9, 1]);
    // So is one whose ratio is not a finite number: the interval would have no rank for it.
    expect(variantMedians(a, { label: 'x', runs: [run(Number.POSITIVE_INFINITY, 2_100), ...b.slice(1)] }).cpuRatios).toEqual([1, 0.9]);
    expect(abFigures({ ab: medians({ wirehookCpuUs: 550 }) })).toEqual([]);
  });

  it('says whether the pairs show a change: the 95 % interval of their median, by ranks, against 1', () => {
    const ab = (cpuRatios: number[]) =>
      figure(
        abFigures({
          ab: medians({
            wirehookCpuUs: 500,
            variant: { label: 'x', wirehookCpuUs: 480, perSecond: 1_000, cpuRatios, rateRatios: [], probeRatios: [], probeExcessRatios: [] },
          }),
        }),
        'ab.cpuRatio',
      ).checked;
    // 20 pairs: the 6th and the 15th of them sorted (95.9 %). The first of this session's three
    // runs of one flag: median 0.943, 14 of 20 below 1, and still no change shown.
    const first = [0.92, 1.062, 0.98, 0.906, 1.011, 0.905, 1, 0.836, 0.894, 0.998, 0.918, 1.165, 0.996, 0.9, 0.915, 1.013, 0.832, 0.966, 1.038, 0.915];
    expect(ab(first)).toMatch(/^95 % interval 0\.906–1 \(pairs ranked 6 and 15 of 20\): no change shown; pairs 0\.92, /);
    // Both sides of 1: an interval wholly below or above it.
    expect(ab(first.map((r) => r - 0.01))).toMatch(/interval 0\.896–0\.99 .*: B lower;/);
    expect(ab(first.map((r) => r + 0.1))).toMatch(/interval 1\.006–1\.1 .*: B higher;/);
    // Six pairs are the fewest with a 95 % interval (their least and greatest, 96.9 %); five are too few.
    expect(ab([0.9, 0.91, 0.92, 0.93, 0.94, 0.95])).toMatch(/^95 % interval 0\.9–0\.95 \(pairs ranked 1 and 6 of 6\): B lower;/);
    expect(ab([0.9, 0.91, 0.92, 0.93, 0.94])).toMatch(/^too few pairs for a 95 % interval \(5\);/);
    // A bound at exactly 1 is no change shown, on either side.
    expect(ab([1, 1.01, 1.02, 1.03, 1.04, 1.05])).toMatch(/interval 1–1\.05 .*: no change shown;/);
    expect(ab([0.95, 0.96, 0.97, 0.98, 0.99, 1])).toMatch(/interval 0\.95–1 .*: no change shown;/);
  });
});

describe('medianInterval: the sign test’s interval for a median, by ranks', () => {
  const oneTo = (n: number) => Array.from({ length: n }, (_, i) => n - i); // unsorted on purpose
  it('takes the ranks whose binomial tails leave at most 1 − confidence out, and says how much they hold', () => {
    // The textbook ranks at 95 %, with the exact coverage 1 − 2 · P(Binomial(n, ½) < k).
    expect(medianInterval(oneTo(6))).toEqual({ low: 1, high: 6, lowRank: 1, highRank: 6, coverage: 1 - 2 / 64 });
    expect(medianInterval(oneTo(10))).toMatchObject({ lowRank: 2, highRank: 9, coverage: expect.closeTo(1 - 22 / 1024, 12) });
    expect(medianInterval(oneTo(20))).toMatchObject({ low: 6, high: 15, coverage: expect.closeTo(1 - (2 * 21_700) / 2 ** 20, 12) });
    expect(medianInterval(oneTo(30))).toMatchObject({ lowRank: 10, highRank: 21 });
    // Another confidence: 99 % at 20 values is the 4th and the 17th (P(X < 4) = 1,351 / 2²⁰).
    expect(medianInterval(oneTo(20), 0.99)).toMatchObject({ lowRank: 4, highRank: 17, coverage: expect.closeTo(1 - (2 * 1_351) / 2 ** 20, 12) });
    expect(medianInterval(oneTo(5))).toBeNull();
    expect(medianInterval([])).toBeNull();
  });

  it('stays right where ½ⁿ is 0 in a double (n > 1,074): ranks near n/2 ∓ 0.98 √n', () => {
    for (const n of [1_074, 1_075, 5_000]) {
      const interval = medianInterval(oneTo(n))!;
      expect(interval.lowRank).toBeLessThan(interval.highRank);
      expect(interval.highRank).toBe(n - interval.lowRank + 1);
      expect(Math.abs(interval.lowRank - (n / 2 - 0.98 * Math.sqrt(n)))).toBeLessThan(2);
      expect(interval.coverage).toBeGreaterThanOrEqual(0.95);
      expect(interval.coverage).toBeLessThan(0.96);
    }
  });

  it('refuses a value with no rank', () => {
    expect(() => medianInterval([1, 2, Number.NaN, 4, 5, 6])).toThrow(RangeError);
    expect(() => medianInterval([1, 2, Number.POSITIVE_INFINITY, 4, 5, 6])).toThrow(/finite numbers/);
  });
});
