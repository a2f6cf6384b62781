import { adder, type Figure, pct, ratio } from './figure.ts';
import type { ScenarioMedians } from './medians.ts';
import { round } from './stats.ts';

/**
 * Endpoint transformations (issue 45) on the e2e load, medians over rounds: deliveries/s and
 * Wirehook's CPU per delivery with no transformation, with the rename enabled and with it stored
 * disabled; the CPU a transformed delivery adds over the same round's no-transformation phases,
 * the sandbox thread's and the main thread's part of it; the noise (none again against none).
 * The one target: the disabled phase within that noise — endpoints without a running
 * transformation pay nothing measurable.
 */
export function transformedFigures({ baseline: b, transformed: t }: ScenarioMedians): Figure[] {
  if (!t) return [];
  const figures: Figure[] = [];
  const add = adder(figures);
  const x = t.extra;
  const rate = b?.perSecond ?? null;
  const vsNone = (v: number | null | undefined) => (v == null ? null : `${v} × none`);
  add({
    id: 'transformed.noneRate',
    scenario: 'transformed',
    measure: 'deliveries/s, no transformation',
    value: x['nonePerSecond'] ?? null,
    unit: '/s',
    ratioToBaseline: ratio(x['nonePerSecond'], rate),
  });
  add({
    id: 'transformed.rate',
    scenario: 'transformed',
    measure: 'deliveries/s, rename transformation',
    value: t.perSecond,
    unit: '/s',
    ratioToBaseline: ratio(t.perSecond, rate),
    checked: vsNone(x['rateVsNone']),
  });
  add({
    id: 'transformed.disabledRate',
    scenario: 'transformed',
    measure: 'deliveries/s, transformation disabled',
    value: x['disabledPerSecond'] ?? null,
    unit: '/s',
    ratioToBaseline: ratio(x['disabledPerSecond'], rate),
    checked: vsNone(ratio(x['disabledPerSecond'], x['nonePerSecond'])),
  });
  add({
    id: 'transformed.noneCpu',
    scenario: 'transformed',
    measure: 'Wirehook CPU per delivery, none',
    value: x['noneCpuUs'] ?? null,
    unit: 'µs',
    ratioToBaseline: null,
  });
  add({
    id: 'transformed.cpu',
    scenario: 'transformed',
    measure: 'Wirehook CPU per delivery, rename',
    value: t.wirehookCpuUs,
    unit: 'µs',
    ratioToBaseline: null,
    checked: vsNone(x['costRatio']),
  });
  add({
    id: 'transformed.costCpu',
    scenario: 'transformed',
    measure: 'CPU a transformed delivery adds (rename − none)',
    value: x['costCpuUs'] ?? null,
    unit: 'µs',
    ratioToBaseline: null,
  });
  add({
    id: 'transformed.sandboxCpu',
    scenario: 'transformed',
    measure: 'of it, the sandbox thread',
    value: x['sandboxCpuUs'] ?? null,
    unit: 'µs',
    ratioToBaseline: null,
    checked: x['sandboxShare'] == null ? null : `${pct(x['sandboxShare'])} of the added`,
  });
  add({
    id: 'transformed.mainThreadCost',
    scenario: 'transformed',
    measure: 'of it, the main thread',
    value: x['mainThreadCostUs'] ?? null,
    unit: 'µs',
    ratioToBaseline: null,
  });
  add({
    id: 'transformed.meanMs',
    scenario: 'transformed',
    measure: "a transformation's time (thread wait + run + checks), mean",
    value: x['transformMeanMs'] ?? null,
    unit: 'ms',
    ratioToBaseline: null,
  });
  add({
    id: 'transformed.noiseCpu',
    scenario: 'transformed',
    measure: 'noise: CPU per delivery, none again − none',
    value: x['noiseCpuUs'] ?? null,
    unit: 'µs',
    ratioToBaseline: null,
    checked: x['noiseMaxCpuUs'] == null ? null : `largest |Δ| ${x['noiseMaxCpuUs']} µs`,
  });
  const delta = x['disabledDeltaCpuUs'] ?? null;
  const bound = x['noiseMaxCpuUs'] ?? null;
  add({
    id: 'transformed.disabledCpu',
    scenario: 'transformed',
    measure: 'CPU per delivery, disabled − none',
    value: delta,
    unit: 'µs',
    ratioToBaseline: null,
    target: '|Δ| ≤ none-vs-none noise',
    checked: delta === null || bound === null ? null : `${round(Math.abs(delta), 1)} µs (noise ${bound} µs)`,
    pass: delta === null || bound === null ? null : Math.abs(delta) <= bound,
  });
  return figures;
}
