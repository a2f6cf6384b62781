// The API probe's figures beside a span of delivery at the maximum rate (e2e, cluster mode,
// the backlog's drain): its p99 idle and during the span, and its control's; the rise (busy ÷
// idle) is checked against issue 46's bound, twice the control's rise in the same span.
import { adder, atMost, type Figure, ratio } from './figure.ts';
import type { Medians } from './medians.ts';

/**
 * The idle-rate API probe beside the closed-loop runs (e2e and cluster) and the backlog's drain: its p99 idle, and
 * while delivering against it; then the control's (a bare server probed alike), whose rise
 * is what the machine alone does to a p99 at that load: the target is twice that rise.
 */
export function probeFigures(scenario: 'e2e' | 'cluster' | 'backlog', m: Medians, baselineP99: number | null | undefined): Figure[] {
  const [idle, busy] = [m.extra['probeIdleP99'] ?? null, m.extra['probeP99'] ?? null];
  if (idle === null && busy === null) return [];
  const [controlIdle, controlBusy] = [m.extra['controlProbeIdleP99'] ?? null, m.extra['controlProbeP99'] ?? null];
  const figures: Figure[] = [];
  const add = adder(figures);
  const vsIdle = ratio(busy, idle);
  const controlVsIdle = ratio(controlBusy, controlIdle);
  // Issue 46: the probe's rise against its control's in the same span. A control that fell
  // under load (its idle window caught an outlier) counts as no rise, not as a tighter bound;
  // without a control there is nothing to check against.
  const vsControl = controlVsIdle === null ? null : ratio(vsIdle, Math.max(1, controlVsIdle));
  add({ id: `${scenario}.probeIdleP99`, scenario, measure: 'API probe p99 (idle)', value: idle, unit: 'ms', ratioToBaseline: ratio(idle, baselineP99) });
  add({
    id: `${scenario}.probeP99`,
    scenario,
    measure: 'API probe p99 (while delivering)',
    value: busy,
    unit: 'ms',
    ratioToBaseline: ratio(busy, baselineP99),
    target: "rise ≤ 2 × the control's",
    checked: vsIdle === null ? null : `${vsIdle} × idle${controlVsIdle === null ? '' : ` (control ${controlVsIdle} ×): ${vsControl} ×`}`,
    pass: atMost(vsControl, 2),
  });
  if (controlIdle === null && controlBusy === null) return figures;
  add({
    id: `${scenario}.controlProbeIdleP99`,
    scenario,
    measure: 'control probe p99 (idle)',
    value: controlIdle,
    unit: 'ms',
    ratioToBaseline: ratio(controlIdle, baselineP99),
  });
  add({
    id: `${scenario}.controlProbeP99`,
    scenario,
    measure: 'control probe p99 (while delivering)',
    value: controlBusy,
    unit: 'ms',
    ratioToBaseline: ratio(controlBusy, baselineP99),
    checked: controlVsIdle === null ? null : `${controlVsIdle} × idle`,
  });
  return figures;
}
