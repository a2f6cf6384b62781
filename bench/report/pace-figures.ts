// Issue 46's pace check (scenarios/pace.ts): with 256 closed-loop senders, delivery keeps pace
// with intake (no growing backlog), or Wirehook uses ≥ 1.7 of the machine's 2 cores —
// whichever comes first names the limit.
import { adder, type Figure, ratio } from './figure.ts';
import type { ScenarioMedians } from './medians.ts';
import { round } from './stats.ts';

/**
 * The backlog's growth, as a percentage of the accepted rate, at or below which delivery keeps
 * pace. Its readings resolve about a percent (≈ 20 of them over ≈ 4 s, each off by the few
 * hundred in flight between a 202 and its delivery); the growing backlog was 12 %
 * (2,042 delivered against 2,328 accepted a second).
 */
export const PACE_GROWTH_PERCENT = 3;
/** The 1.7 of 2 cores, as a share of the machine's. */
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
  const growth = p.extra['backlogGrowthPercent'] ?? null;
  const cpus = p.extra['cpus'] ?? null;
  const share = (percentOfACore: number | null) => (percentOfACore === null || cpus === null ? null : percentOfACore / 100 / cpus);
  const wirehook = share(p.cpuWirehook);
  // Everything that ran: Wirehook, the receiver, the harness and the rest of the machine.
  const machine = share(p.cpuWirehook === null ? null : [p.cpuWirehook, p.cpuReceiver, p.cpuHarness, p.cpuOthers].reduce<number>((a, v) => a + (v ?? 0), 0));
  const keptPace = growth === null ? null : growth <= PACE_GROWTH_PERCENT;
  const cpuBound = wirehook === null ? null : wirehook >= PACE_CORES_SHARE;
  const cores = (s: number | null) => (s === null || cpus === null ? '?' : round(s * cpus, 2));
  add({
    id: 'pace.kept',
    scenario: 'pace',
    measure: 'backlog growth, % of accepted/s',
    value: growth,
    unit: '',
    ratioToBaseline: null,
    target: `≤ ${PACE_GROWTH_PERCENT} %, or Wirehook ≥ ${PACE_CORES_SHARE} × the cores`,
    checked:
      growth === null && wirehook === null
        ? null
        : `${growth ?? '?'} %, Wirehook ${cores(wirehook)} of ${cpus ?? '?'} cores (all ${cores(machine)}): ${limitOf(keptPace, cpuBound, machine)}`,
    // Either half met is a pass; neither met with either unmeasured is no verdict.
    pass: keptPace || cpuBound ? true : keptPace === null || cpuBound === null ? null : false,
  });
  add({
    id: 'pace.backlog',
    scenario: 'pace',
    measure: 'backlog at the last accept',
    value: p.extra['backlogAtLastAccept'] ?? null,
    unit: '',
    ratioToBaseline: null,
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

/** What the run says limits delivery: it kept pace; Wirehook has the CPU; the machine's CPU is spent beside it; or neither. */
function limitOf(keptPace: boolean | null, cpuBound: boolean | null, machine: number | null): string {
  if (keptPace) return 'delivery keeps pace';
  if (cpuBound) return 'Wirehook has the cores: the CPU is the limit';
  if (keptPace === null) return 'the backlog not measured';
  if (cpuBound === null) return "a backlog grows, Wirehook's CPU not measured";
  if (machine !== null && machine >= PACE_CORES_SHARE) return 'a backlog grows, the machine busy beside Wirehook';
  return 'a backlog grows with cores to spare';
}
