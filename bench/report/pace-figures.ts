// Issue 46's pace check (scenarios/pace.ts): with 256 closed-loop senders, delivery keeps pace
// with intake (no growing backlog), or Wirehook uses ≥ 1.7 of the machine's 2 cores —
// whichever comes first names the limit.
import { adder, type Figure, ratio } from './figure.ts';
import type { ScenarioMedians } from './medians.ts';
import { round } from './stats.ts';

/**
 * Deliveries a second as a share of accepted a second, each over its own span, at or above which
 * delivery keeps pace. A steady state's tail (the last messages' accept→receive, ≈ 0.1 s at 256
 * senders, against the full run's ≈ 5 s) costs ≈ 2 %; the issue's growing backlog measured 88 %
 * (2,042 delivered against 2,328 accepted a second).
 */
export const PACE_KEPT_PERCENT = 95;
/** The 1.7 of 2 cores, as a share of the machine's: Wirehook is then the CPU's limit. */
export const PACE_CORES_SHARE = 0.85;

export function paceFigures({ baseline: b, pace: p }: ScenarioMedians): Figure[] {
  if (!p) return [];
  const figures: Figure[] = [];
  const add = adder(figures);
  add({ id: 'pace.rate', scenario: 'pace', measure: 'deliveries/s', value: p.perSecond, unit: '/s', ratioToBaseline: ratio(p.perSecond, b?.perSecond) });
  add({
    id: 'pace.intakeRate',
    scenario: 'pace',
    measure: 'accepted/s',
    value: p.intakePerSecond,
    unit: '/s',
    ratioToBaseline: ratio(p.intakePerSecond, b?.perSecond),
  });
  const kept = p.extra['deliveredPercent'] ?? null;
  const cpus = p.extra['cpus'] ?? null;
  const cores = p.cpuWirehook === null ? null : round(p.cpuWirehook / 100, 2);
  const keptPace = kept === null ? null : kept >= PACE_KEPT_PERCENT;
  const cpuBound = cores === null || cpus === null ? null : cores >= PACE_CORES_SHARE * cpus;
  add({
    id: 'pace.kept',
    scenario: 'pace',
    measure: 'deliveries/s as % of accepted/s',
    value: kept,
    unit: '',
    ratioToBaseline: null,
    target: `≥ ${PACE_KEPT_PERCENT} %, or Wirehook ≥ ${PACE_CORES_SHARE} × the cores`,
    checked: kept === null ? null : `${kept} %, Wirehook ${cores ?? '?'} of ${cpus ?? '?'} cores: ${limitOf(keptPace, cpuBound)}`,
    pass: keptPace === null && cpuBound === null ? null : keptPace === true || cpuBound === true,
  });
  add({
    id: 'pace.p99',
    scenario: 'pace',
    measure: 'accept→receive p99',
    value: p.latencyP99,
    unit: 'ms',
    ratioToBaseline: ratio(p.latencyP99, b?.latencyP99),
  });
  add({ id: 'pace.cpu', scenario: 'pace', measure: 'Wirehook CPU per delivery', value: p.wirehookCpuUs, unit: 'µs', ratioToBaseline: null });
  return figures;
}

/** What the run says limits delivery: it kept pace, the CPU is spent, or a backlog grew short of it. */
function limitOf(keptPace: boolean | null, cpuBound: boolean | null): string {
  if (keptPace) return 'delivery keeps pace';
  if (cpuBound) return 'the CPU is the limit';
  return 'a backlog grows with cores to spare';
}
