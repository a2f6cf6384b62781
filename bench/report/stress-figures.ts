// The figures of the scenarios under pressure: a failure storm, a noisy tenant's backlog, and
// a backlog drained after a restart, each against the same load without the pressure.
import { adder, atLeast, atMost, type Figure, pct, ratio } from './figure.ts';
import type { ScenarioMedians } from './medians.ts';
import { probeFigures } from './probe-figures.ts';

/** The storm: the healthy half’s deliveries per second against the same half in e2e. */
export function stormFigures({ baseline: b, e2e: e, storm: s }: ScenarioMedians): Figure[] {
  if (!s) return [];
  const rate = b?.perSecond ?? null;
  const figures: Figure[] = [];
  const add = adder(figures);
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
  return figures;
}

/** A noisy tenant: the healthy tenants’ rate and p99 against the same load without the backlog. */
export function noisyFigures({ baseline: b, noisy: n }: ScenarioMedians): Figure[] {
  if (!n) return [];
  const rate = b?.perSecond ?? null;
  const figures: Figure[] = [];
  const add = adder(figures);
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
  return figures;
}

/** A backlog: peak RSS, the drain rate against e2e, and the API probe through the drain. */
export function backlogFigures({ baseline: b, e2e: e, backlog: k }: ScenarioMedians): Figure[] {
  if (!k) return [];
  const rate = b?.perSecond ?? null;
  const figures: Figure[] = [];
  const add = adder(figures);
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
  figures.push(...probeFigures('backlog', k, b?.latencyP99));
  return figures;
}
