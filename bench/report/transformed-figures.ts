import { adder, type Figure, pct, ratio } from './figure.ts';
import type { ScenarioMedians } from './medians.ts';
import { round } from './stats.ts';

/**
 * Endpoint transformations (issue 45) on the e2e load, medians over rounds. Flat out:
 * deliveries/s and Wirehook's CPU per delivery with no transformation and with the rename.
 * Paced at one rate below saturation (half the flat-out rename rate) in four phases: CPU per
 * delivery with none, the rename, none again and the rename disabled; the CPU a transformed
 * delivery adds over the same round's none phases, by thread (the sandbox's, the main
 * thread's, the store writer's); the noise (none again − none). Targets: the disabled phase
 * within that noise (endpoints without a running transformation pay nothing measurable), and
 * no run of the rename failing.
 */
export function transformedFigures({ baseline: b, transformed: t }: ScenarioMedians): Figure[] {
  if (!t) return [];
  const figures: Figure[] = [];
  const add = adder(figures);
  const x = t.extra;
  const rate = b?.perSecond ?? null;
  const v = (key: string) => x[key] ?? null;
  const vsNone = (value: number | null) => (value === null ? null : `${value} × none`);
  const us = (id: string, measure: string, key: string, checked: string | null = null) =>
    add({ id: `transformed.${id}`, scenario: 'transformed', measure, value: v(key), unit: 'µs', ratioToBaseline: null, checked });
  add({
    id: 'transformed.noneRate',
    scenario: 'transformed',
    measure: 'flat out: deliveries/s, no transformation',
    value: v('nonePerSecond'),
    unit: '/s',
    ratioToBaseline: ratio(v('nonePerSecond'), rate),
  });
  add({
    id: 'transformed.rate',
    scenario: 'transformed',
    measure: 'flat out: deliveries/s, rename',
    value: v('enabledPerSecond'),
    unit: '/s',
    ratioToBaseline: ratio(v('enabledPerSecond'), rate),
    checked: vsNone(v('rateVsNone')),
  });
  us('flatNoneCpu', 'flat out: Wirehook CPU per delivery, none', 'flatNoneCpuUs');
  us('flatCpu', 'flat out: Wirehook CPU per delivery, rename', 'flatEnabledCpuUs', vsNone(ratio(v('flatEnabledCpuUs'), v('flatNoneCpuUs'))));
  add({
    id: 'transformed.flatMeanMs',
    scenario: 'transformed',
    measure: "flat out: a transformation's time (thread wait + run + checks), mean",
    value: v('flatTransformMeanMs'),
    unit: 'ms',
    ratioToBaseline: null,
  });
  add({
    id: 'transformed.offered',
    scenario: 'transformed',
    measure: 'paced at (½ the flat-out rename rate)',
    value: v('offeredPerSecond'),
    unit: '/s',
    ratioToBaseline: ratio(v('offeredPerSecond'), rate),
  });
  us('noneCpu', 'paced: Wirehook CPU per delivery, none (mean of two)', 'baseCpuUs');
  add({
    id: 'transformed.cpu',
    scenario: 'transformed',
    measure: 'paced: Wirehook CPU per delivery, rename',
    value: t.wirehookCpuUs,
    unit: 'µs',
    ratioToBaseline: null,
    checked: vsNone(v('costRatio')),
  });
  us('costCpu', 'paced: CPU a transformed delivery adds', 'costCpuUs');
  us('sandboxCpu', 'of it, the sandbox thread', 'sandboxCpuUs', x['sandboxShare'] == null ? null : `${pct(x['sandboxShare'])} of the added`);
  us('mainThreadCost', 'of it, the main thread', 'mainThreadCostUs');
  us('storeWriterCost', 'of it, the store writer', 'storeWriterCostUs');
  add({
    id: 'transformed.meanMs',
    scenario: 'transformed',
    measure: "paced: a transformation's time (thread wait + run + checks), mean",
    value: v('transformMeanMs'),
    unit: 'ms',
    ratioToBaseline: null,
  });
  add({
    id: 'transformed.p99',
    scenario: 'transformed',
    measure: 'paced: accept→receive p99, rename',
    value: t.latencyP99,
    unit: 'ms',
    ratioToBaseline: ratio(t.latencyP99, b?.latencyP99),
    checked: t.latencyP99 === null || v('noneP99') === null ? null : `none: ${v('noneP99')} ms`,
  });
  us('noiseCpu', 'paced: noise, CPU per delivery none again − none', 'noiseCpuUs', x['noiseMaxCpuUs'] == null ? null : `largest |Δ| ${x['noiseMaxCpuUs']} µs`);
  const delta = v('disabledDeltaCpuUs');
  const bound = v('noiseMaxCpuUs');
  add({
    id: 'transformed.disabledCpu',
    scenario: 'transformed',
    measure: 'paced: CPU per delivery, disabled − none',
    value: delta,
    unit: 'µs',
    ratioToBaseline: null,
    target: '|Δ| ≤ none-vs-none noise',
    checked: delta === null || bound === null ? null : `${round(Math.abs(delta), 1)} µs (noise ${bound} µs)`,
    pass: delta === null || bound === null ? null : Math.abs(delta) <= bound,
  });
  const failures = v('transformFailuresTotal');
  add({
    id: 'transformed.failures',
    scenario: 'transformed',
    measure: 'runs of the rename failed (all rounds)',
    value: failures,
    unit: '',
    ratioToBaseline: null,
    target: '0',
    pass: failures === null ? null : failures === 0,
  });
  return figures;
}
