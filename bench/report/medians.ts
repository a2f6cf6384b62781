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
  /** By part of Wirehook (thread or service), largest first. */
  wirehookCpuUsByPart: Record<string, number | null>;
  peakRssMb: number | null;
  /** The machine's runnable threads: the mean, and the percent of samples above its CPUs. */
  runQueueMean: number | null;
  runQueueOverCpus: number | null;
  extra: Record<string, number | null>;
  /** e2e: the paced run (offered rate, latency below saturation). */
  paced?: { offeredPerSecond: number | null; latencyP50: number | null; latencyP99: number | null };
  /** The warming run's (records.ts), as is: its messages and their deliveries, rate and CPU a delivery. */
  warming?: { sent: number; delivered: number; perSecond: number; wirehookCpuUs: number | null };
  /** `ab`: B's medians, and each pair's B ÷ A (CPU a delivery, rate), in the pairs' order. */
  variant?: {
    label: string;
    wirehookCpuUs: number | null;
    perSecond: number | null;
    cpuRatios: number[];
    rateRatios: number[];
    /** Each pair's B ÷ A of the API probe's p99 while delivering, and of that p99 over its control's in the same span (scenarios/ab.ts). */
    probeRatios: number[];
    probeExcessRatios: number[];
  };
}

/** Each scenario's medians, for the scenarios that ran. */
export type ScenarioMedians = Partial<Record<ScenarioName, Medians>>;

/** Medians over runs of every number in the records (and the paced and warming runs' figures as they are). */
export function mediansOf(runs: readonly RunRecord[], paced?: RunRecord, warming?: RunRecord): Medians {
  const m = (pick: (r: RunRecord) => number | null | undefined) => {
    const values = runs.map(pick).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    const value = median(values);
    return value === null ? null : round(value, 1);
  };
  const extraKeys = new Set(runs.flatMap((r) => Object.keys(r.extra)));
  const partKeys = new Set(runs.flatMap((r) => Object.keys(r.wirehookCpuUsByPart ?? {})));
  // A part a run measured nothing of counts 0 there (not left out, which would lift its median).
  const byPart = [...partKeys]
    .map((k) => [k, m((r) => (r.wirehookCpuUsByPart === undefined ? undefined : (r.wirehookCpuUsByPart[k] ?? 0)))] as const)
    .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0));
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
    wirehookCpuUsByPart: Object.fromEntries(byPart),
    peakRssMb: m((r) => r.peakRssMb),
    runQueueMean: m((r) => r.runQueue?.mean),
    runQueueOverCpus: m((r) => r.runQueue?.overCpusPercent),
    extra: Object.fromEntries([...extraKeys].map((k) => [k, m((r) => r.extra[k])])),
    ...(paced && {
      paced: {
        offeredPerSecond: paced.extra['offeredPerSecond'] ?? null,
        latencyP50: paced.latencyMs?.p50 ?? null,
        latencyP99: paced.latencyMs?.p99 ?? null,
      },
    }),
    ...(warming && { warming: { sent: warming.sent, delivered: warming.delivered, perSecond: warming.perSecond, wirehookCpuUs: warming.wirehookCpuUs } }),
  };
}

/** B's medians against A's, pair by pair (scenarios/ab.ts): pair i is A's run i and B's run i. */
export function variantMedians(runs: readonly RunRecord[], variant: { label: string; runs: readonly RunRecord[] }): NonNullable<Medians['variant']> {
  const b = mediansOf(variant.runs);
  const pairs = runs.map((a, i) => [a, variant.runs[i]] as const).filter((pair): pair is readonly [RunRecord, RunRecord] => pair[1] !== undefined);
  const ratios = (pick: (r: RunRecord) => number | null) =>
    pairs.flatMap(([a, b]) => {
      const [x, y] = [pick(a), pick(b)];
      // A pair without a finite ratio (a run that delivered nothing has no CPU a delivery) is left out.
      const ratio = x !== null && y !== null && x > 0 ? y / x : Number.NaN;
      return Number.isFinite(ratio) ? [round(ratio, 3)] : [];
    });
  return {
    label: variant.label,
    wirehookCpuUs: b.wirehookCpuUs,
    perSecond: b.perSecond,
    cpuRatios: ratios((r) => r.wirehookCpuUs),
    rateRatios: ratios((r) => r.perSecond),
    probeRatios: ratios((r) => extraNumber(r, 'probeP99')),
    // A control of 0 makes no finite ratio: `ratios` leaves that pair out.
    probeExcessRatios: ratios((r) => {
      const [probe, control] = [extraNumber(r, 'probeP99'), extraNumber(r, 'controlProbeP99')];
      return probe === null || control === null ? null : probe / control;
    }),
  };
}

/** A run's figure kept in `extra`, or null: a report read back from JSON has null where a span had no p99 (NaN). */
function extraNumber(r: RunRecord, key: string): number | null {
  const value = r.extra[key];
  return typeof value === 'number' ? value : null;
}
