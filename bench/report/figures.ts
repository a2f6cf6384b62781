import type { RunRecord, ScenarioName } from './records.ts';
import { median, round } from './stats.ts';

/** The medians of a scenario's runs; null where no run measured it. */
export interface Medians {
  perSecond: number | null;
  seconds: number | null;
  latencyP50: number | null;
  latencyP99: number | null;
  intakePerSecond: number | null;
  intakeP50: number | null;
  intakeP99: number | null;
  cpuWirehook: number | null;
  cpuReceiver: number | null;
  cpuHarness: number | null;
  cpuOthers: number | null;
  cpuSteal: number | null;
  wirehookCpuUs: number | null;
  peakRssMb: number | null;
  extra: Record<string, number | null>;
  /** e2e: the paced run (offered rate, latency below saturation). */
  paced?: { offeredPerSecond: number | null; latencyP50: number | null; latencyP99: number | null };
}

/** One line of the report. */
export interface Figure {
  /** Stable key, e.g. `e2e.p99`. */
  id: string;
  scenario: ScenarioName;
  measure: string;
  value: number | null;
  unit: '/s' | 'ms' | 'MB' | 'µs' | '';
  /** The value over the same run's baseline figure of the same kind (rate or latency percentile); null when there is none. */
  ratioToBaseline: number | null;
  /** The target, in words; null when the figure has none. */
  target: string | null;
  /** The number checked against the target, as shown (e.g. `0.23 × baseline`). */
  checked: string | null;
  /** null: no target, or not measured. */
  pass: boolean | null;
}

/** Medians over runs of every number in the records (and the paced run's latency as is). */
export function mediansOf(runs: readonly RunRecord[], paced?: RunRecord): Medians {
  const m = (pick: (r: RunRecord) => number | null | undefined) => {
    const values = runs.map(pick).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    const value = median(values);
    return value === null ? null : round(value, 1);
  };
  const extraKeys = new Set(runs.flatMap((r) => Object.keys(r.extra)));
  return {
    perSecond: m((r) => r.perSecond),
    seconds: m((r) => r.seconds),
    latencyP50: m((r) => r.latencyMs?.p50),
    latencyP99: m((r) => r.latencyMs?.p99),
    intakePerSecond: m((r) => r.intake?.perSecond),
    intakeP50: m((r) => r.intake?.latencyMs?.p50),
    intakeP99: m((r) => r.intake?.latencyMs?.p99),
    cpuWirehook: m((r) => r.cpu.wirehook),
    cpuReceiver: m((r) => r.cpu.receiver),
    cpuHarness: m((r) => r.cpu.harness),
    cpuOthers: m((r) => r.cpu.others),
    cpuSteal: m((r) => r.cpu.steal),
    wirehookCpuUs: m((r) => r.wirehookCpuUs),
    peakRssMb: m((r) => r.peakRssMb),
    extra: Object.fromEntries([...extraKeys].map((k) => [k, m((r) => r.extra[k])])),
    ...(paced && {
      paced: {
        offeredPerSecond: paced.extra['offeredPerSecond'] ?? null,
        latencyP50: paced.latencyMs?.p50 ?? null,
        latencyP99: paced.latencyMs?.p99 ?? null,
      },
    }),
  };
}

const ratio = (a: number | null | undefined, b: number | null | undefined) => (a == null || b == null || b === 0 ? null : round(a / b, 2));
const atMost = (v: number | null, limit: number) => (v === null ? null : v <= limit);
const atLeast = (v: number | null, limit: number) => (v === null ? null : v >= limit);
const pct = (v: number | null) => (v === null ? null : `${Math.round(v * 100)}%`);

/** The report's figures, with ratios to the baseline and the targets. */
export function figuresOf(medians: Partial<Record<ScenarioName, Medians>>): Figure[] {
  const { baseline: b, intake: i, e2e: e, fanout: f, storm: s, noisy: n, backlog: k, cluster: c, idempotency: d } = medians;
  const rate = b?.perSecond ?? null;
  const figures: Figure[] = [];
  const add = (fig: Omit<Figure, 'target' | 'checked' | 'pass'> & Partial<Pick<Figure, 'target' | 'checked' | 'pass'>>) =>
    figures.push({ target: null, checked: null, pass: null, ...fig });

  if (b) {
    add({ id: 'baseline.rate', scenario: 'baseline', measure: 'POSTs/s', value: b.perSecond, unit: '/s', ratioToBaseline: 1 });
    add({ id: 'baseline.p50', scenario: 'baseline', measure: 'latency p50', value: b.latencyP50, unit: 'ms', ratioToBaseline: 1 });
    add({ id: 'baseline.p99', scenario: 'baseline', measure: 'latency p99', value: b.latencyP99, unit: 'ms', ratioToBaseline: 1 });
  }
  if (i) {
    add({
      id: 'intake.rate',
      scenario: 'intake',
      measure: 'accepted/s',
      value: i.intakePerSecond,
      unit: '/s',
      ratioToBaseline: ratio(i.intakePerSecond, rate),
    });
    add({ id: 'intake.p50', scenario: 'intake', measure: 'latency p50', value: i.intakeP50, unit: 'ms', ratioToBaseline: ratio(i.intakeP50, b?.latencyP50) });
    add({
      id: 'intake.p99',
      scenario: 'intake',
      measure: 'latency p99',
      value: i.intakeP99,
      unit: 'ms',
      ratioToBaseline: ratio(i.intakeP99, b?.latencyP99),
      target: '≤ 25 ms',
      pass: atMost(i.intakeP99, 25),
    });
  }
  if (e) {
    const r = ratio(e.perSecond, rate);
    add({
      id: 'e2e.rate',
      scenario: 'e2e',
      measure: 'deliveries/s',
      value: e.perSecond,
      unit: '/s',
      ratioToBaseline: r,
      target: '≥ 0.25 × baseline',
      checked: r === null ? null : `${r} × baseline`,
      pass: atLeast(r, 0.25),
    });
    add({
      id: 'e2e.cpu',
      scenario: 'e2e',
      measure: 'Wirehook CPU per delivery',
      value: e.wirehookCpuUs,
      unit: 'µs',
      ratioToBaseline: null,
      target: '≤ 400 µs',
      pass: atMost(e.wirehookCpuUs, 400),
    });
    add({
      id: 'e2e.p50',
      scenario: 'e2e',
      measure: 'accept→receive p50',
      value: e.latencyP50,
      unit: 'ms',
      ratioToBaseline: ratio(e.latencyP50, b?.latencyP50),
      target: '≤ 20 ms',
      pass: atMost(e.latencyP50, 20),
    });
    add({
      id: 'e2e.p99',
      scenario: 'e2e',
      measure: 'accept→receive p99',
      value: e.latencyP99,
      unit: 'ms',
      ratioToBaseline: ratio(e.latencyP99, b?.latencyP99),
      target: '≤ 100 ms',
      pass: atMost(e.latencyP99, 100),
    });
    if (e.paced) {
      const at = `at ${e.paced.offeredPerSecond ?? '?'}/s (½ load)`;
      add({
        id: 'e2e.pacedP50',
        scenario: 'e2e',
        measure: `accept→receive p50 ${at}`,
        value: e.paced.latencyP50,
        unit: 'ms',
        ratioToBaseline: ratio(e.paced.latencyP50, b?.latencyP50),
      });
      add({
        id: 'e2e.pacedP99',
        scenario: 'e2e',
        measure: `accept→receive p99 ${at}`,
        value: e.paced.latencyP99,
        unit: 'ms',
        ratioToBaseline: ratio(e.paced.latencyP99, b?.latencyP99),
      });
    }
    add({
      id: 'e2e.intakeRate',
      scenario: 'e2e',
      measure: 'accepted/s (while delivering)',
      value: e.intakePerSecond,
      unit: '/s',
      ratioToBaseline: ratio(e.intakePerSecond, rate),
    });
    add({
      id: 'e2e.intakeP99',
      scenario: 'e2e',
      measure: 'intake p99 (while delivering)',
      value: e.intakeP99,
      unit: 'ms',
      ratioToBaseline: ratio(e.intakeP99, b?.latencyP99),
      target: '≤ 25 ms',
      pass: atMost(e.intakeP99, 25),
    });
  }
  if (f) {
    const vsE2e = ratio(f.perSecond, e?.perSecond);
    add({
      id: 'fanout.rate',
      scenario: 'fanout',
      measure: 'deliveries/s',
      value: f.perSecond,
      unit: '/s',
      ratioToBaseline: ratio(f.perSecond, rate),
      target: '≥ 2 × e2e',
      checked: vsE2e === null ? null : `${vsE2e} × e2e`,
      pass: atLeast(vsE2e, 2),
    });
  }
  if (s) {
    const vsCalm = ratio(s.perSecond, e?.extra['halfPerSecond']);
    add({
      id: 'storm.healthyRate',
      scenario: 'storm',
      measure: 'healthy-half deliveries/s',
      value: s.perSecond,
      unit: '/s',
      ratioToBaseline: ratio(s.perSecond, rate),
      target: '≥ 80% of the same half in e2e',
      checked: pct(vsCalm),
      pass: atLeast(vsCalm, 0.8),
    });
  }
  if (n) {
    const vsPlain = ratio(n.perSecond, n.extra['plainPerSecond']);
    add({
      id: 'noisy.healthyRate',
      scenario: 'noisy',
      measure: 'healthy tenants deliveries/s',
      value: n.perSecond,
      unit: '/s',
      ratioToBaseline: ratio(n.perSecond, rate),
      target: '≥ 80% of the same load without the backlog',
      checked: pct(vsPlain),
      pass: atLeast(vsPlain, 0.8),
    });
    const p99VsPlain = ratio(n.latencyP99, n.extra['plainP99']);
    add({
      id: 'noisy.healthyP99',
      scenario: 'noisy',
      measure: 'healthy accept→receive p99',
      value: n.latencyP99,
      unit: 'ms',
      ratioToBaseline: ratio(n.latencyP99, b?.latencyP99),
      target: '≤ 2 × p99 without the backlog',
      checked: p99VsPlain === null ? null : `${p99VsPlain} ×`,
      pass: atMost(p99VsPlain, 2),
    });
    add({
      id: 'noisy.plainRate',
      scenario: 'noisy',
      measure: 'same load, no backlog: deliveries/s',
      value: n.extra['plainPerSecond'] ?? null,
      unit: '/s',
      ratioToBaseline: ratio(n.extra['plainPerSecond'], rate),
    });
  }
  if (k) {
    const before = k.extra['rssBeforeRestartMb'];
    const measure = before === undefined ? 'peak RSS' : 'peak RSS (restarted first)';
    add({
      id: 'backlog.rss',
      scenario: 'backlog',
      measure,
      value: k.peakRssMb,
      unit: 'MB',
      ratioToBaseline: null,
      target: '< 500 MB',
      pass: k.peakRssMb === null ? null : k.peakRssMb < 500,
    });
    if (before !== undefined)
      add({ id: 'backlog.rssBefore', scenario: 'backlog', measure: 'RSS the scenarios before reached', value: before, unit: 'MB', ratioToBaseline: null });
    const vsE2e = ratio(k.perSecond, e?.perSecond);
    add({
      id: 'backlog.drain',
      scenario: 'backlog',
      measure: 'drain deliveries/s',
      value: k.perSecond,
      unit: '/s',
      ratioToBaseline: ratio(k.perSecond, rate),
      target: '≥ 80% of e2e',
      checked: pct(vsE2e),
      pass: atLeast(vsE2e, 0.8),
    });
  }
  if (c) {
    const vsEmbedded = ratio(c.perSecond, e?.perSecond);
    add({
      id: 'cluster.rate',
      scenario: 'cluster',
      measure: 'e2e deliveries/s, cluster mode',
      value: c.perSecond,
      unit: '/s',
      ratioToBaseline: ratio(c.perSecond, rate),
      target: '≥ 0.6 × embedded e2e',
      checked: vsEmbedded === null ? null : `${vsEmbedded} × embedded`,
      pass: atLeast(vsEmbedded, 0.6),
    });
    add({
      id: 'cluster.p50',
      scenario: 'cluster',
      measure: 'accept→receive p50',
      value: c.latencyP50,
      unit: 'ms',
      ratioToBaseline: ratio(c.latencyP50, b?.latencyP50),
    });
    add({
      id: 'cluster.intakeP99',
      scenario: 'cluster',
      measure: 'intake p99 (while delivering)',
      value: c.intakeP99,
      unit: 'ms',
      ratioToBaseline: ratio(c.intakeP99, b?.latencyP99),
    });
  }
  if (d) figures.push(...idempotencyFigures(d, b));
  return figures;
}

/**
 * The idempotency scenario: each measure with the gateway's Redis front off, then on, the
 * second with the after/before ratio. No targets: the issue asks for the figures.
 */
function idempotencyFigures(d: Medians, b: Medians | undefined): Figure[] {
  const rows: [key: string, measure: string, unit: Figure['unit'], baseline: number | null | undefined][] = [
    ['ReplaysPerSecond', 'replays/s', '/s', b?.perSecond],
    ['ReplayP50', 'replay latency p50', 'ms', b?.latencyP50],
    ['ReplayP99', 'replay latency p99', 'ms', b?.latencyP99],
    ['CpuUsPerReplay', 'Wirehook CPU per replay', 'µs', undefined],
    ['BurstP50', '50-way duplicate burst, all answered, p50', 'ms', undefined],
    ['BurstP99', '50-way duplicate burst, all answered, p99', 'ms', undefined],
    ['IntakeCallsPerBurst', 'sends of a burst reaching message-intake', '', undefined],
  ];
  return rows.flatMap(([key, measure, unit, base]) => {
    const [off, on] = [d.extra[`off${key}`] ?? null, d.extra[`on${key}`] ?? null];
    const vsOff = ratio(on, off);
    const row = (front: 'off' | 'on', value: number | null): Figure => ({
      id: `idempotency.${front}${key}`,
      scenario: 'idempotency',
      measure: `${measure}, front ${front}`,
      value,
      unit,
      ratioToBaseline: ratio(value, base),
      target: null,
      checked: front === 'on' && vsOff !== null ? `${vsOff} × off` : null,
      pass: null,
    });
    return [row('off', off), row('on', on)];
  });
}
