import { adder, type Figure, pct, ratio } from './figure.ts';
import type { ScenarioMedians } from './medians.ts';
import { round } from './stats.ts';

/**
 * Endpoint transformations (issue 45) on the e2e load, medians over rounds. Flat out:
 * deliveries/s and Wirehook's CPU per delivery with no transformation (the mean of two phases),
 * with the rename and with the rename stored disabled; the disabled phase against none, beside
 * none again against none (the noise). Paced at one rate (half the flat-out rename rate): the
 * CPU a transformed delivery adds over the none phases, by thread (the sandbox's, the main
 * thread's, the store writer's). Targets: disabled within the none-vs-none noise (endpoints
 * without a running transformation pay nothing measurable), and no run of the rename failing.
 */
export function transformedFigures({ baseline: b, transformed: t }: ScenarioMedians): Figure[] {
  if (!t) return [];
  const figures: Figure[] = [];
  const add = adder(figures);
  const x = t.extra;
  const rate = b?.perSecond ?? null;
  const v = (key: string) => x[key] ?? null;
  const vsNone = (value: number | null) => (value === null ? null : `${value} × none`);
  const perSecond = (id: string, measure: string, key: string, checked: string | null = null) =>
    add({ id: `transformed.${id}`, scenario: 'transformed', measure, value: v(key), unit: '/s', ratioToBaseline: ratio(v(key), rate), checked });
  const us = (id: string, measure: string, key: string, checked: string | null = null) =>
    add({ id: `transformed.${id}`, scenario: 'transformed', measure, value: v(key), unit: 'µs', ratioToBaseline: null, checked });
  const ms = (id: string, measure: string, key: string) =>
    add({ id: `transformed.${id}`, scenario: 'transformed', measure, value: v(key), unit: 'ms', ratioToBaseline: null });

  perSecond('noneRate', 'flat out: deliveries/s, no transformation', 'nonePerSecond', `none again ${v('noneAgainRateVsNone')} × none`);
  perSecond('rate', 'flat out: deliveries/s, rename', 'enabledPerSecond', vsNone(v('rateVsNone')));
  perSecond('disabledRate', 'flat out: deliveries/s, rename disabled', 'disabledPerSecond', vsNone(v('disabledRateVsNone')));
  us('flatNoneCpu', 'flat out: Wirehook CPU per delivery, none', 'flatNoneCpuUs');
  us('flatCpu', 'flat out: Wirehook CPU per delivery, rename', 'flatEnabledCpuUs', vsNone(ratio(v('flatEnabledCpuUs'), v('flatNoneCpuUs'))));
  us('flatSandboxCpu', 'flat out: of it, the sandbox thread', 'flatSandboxCpuUs');
  add({
    id: 'transformed.flatPutOffs',
    scenario: 'transformed',
    measure: 'flat out: sends put off per delivery (no sandbox thread free soon enough)',
    value: v('flatPutOffs'),
    unit: '',
    ratioToBaseline: null,
  });
  ms('flatMeanMs', "flat out: a transformation's time (thread wait + run + checks), mean", 'flatTransformMeanMs');
  us(
    'flatNoiseCpu',
    'flat out: CPU per delivery, none again − none',
    'flatNoiseCpuUs',
    x['flatNoiseMaxCpuUs'] == null ? null : `largest |Δ| ${x['flatNoiseMaxCpuUs']} µs`,
  );
  const delta = v('disabledDeltaCpuUs');
  const bound = v('flatNoiseMaxCpuUs');
  add({
    id: 'transformed.disabledCpu',
    scenario: 'transformed',
    measure: 'flat out: CPU per delivery, disabled − none',
    value: delta,
    unit: 'µs',
    ratioToBaseline: null,
    target: '|Δ| ≤ none-vs-none noise',
    checked: delta === null || bound === null ? null : `${round(Math.abs(delta), 1)} µs (noise ${bound} µs)`,
    pass: delta === null || bound === null ? null : Math.abs(delta) <= bound,
  });
  perSecond('offered', 'paced at (½ the flat-out rename rate)', 'offeredPerSecond');
  us('noneCpu', 'paced: Wirehook CPU per delivery, none', 'noneCpuUs');
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
  us(
    'pacedNoiseCpu',
    'paced: CPU per delivery, none again − none',
    'pacedNoiseCpuUs',
    x['pacedNoiseMaxCpuUs'] == null ? null : `largest |Δ| ${x['pacedNoiseMaxCpuUs']} µs`,
  );
  ms('meanMs', "paced: a transformation's time (thread wait + run + checks), mean", 'transformMeanMs');
  add({
    id: 'transformed.pacedPutOffs',
    scenario: 'transformed',
    measure: 'paced: sends put off per delivery',
    value: v('pacedPutOffs'),
    unit: '',
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
