import { readMetric } from '@wirehook/testkit';
import type { BenchContext } from '../context.ts';
import { SANDBOX_COMM, threadsNamed } from '../report/cpu-parts.ts';
import type { RunRecord, ScenarioResult } from '../report/records.ts';
import { round } from '../report/stats.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { RENAME_TRANSFORMATION } from '../setup/transformation.ts';
import { measureDeliveries } from './delivery-run.ts';

/** What the endpoints of a phase have: no transformation, the rename enabled, or the rename stored with `enabled: false`. */
export type Variant = 'none' | 'enabled' | 'disabled';
/** A round's flat-out phases, then its paced ones; each round starts one further along each (see runTransformed). */
const FLAT: readonly Variant[] = ['none', 'enabled', 'none', 'disabled'];
const PACED: readonly Variant[] = ['none', 'enabled', 'none'];
/** The paced phases' rate: this share of the round's flat-out rate with the transformation (below saturation in every phase). */
const PACED_SHARE = 0.5;
/** The report's part of Wirehook's CPU that is the sandbox threads (cpu-parts.ts). */
const SANDBOX_PART = 'transform sandbox';
const MAIN_PART = 'main thread';
const WRITER_PART = 'store writer';
const GROUP = 'transformed';

/** The POST /v1/endpoints fields of each variant. */
const FIELDS: Record<Variant, Record<string, unknown>> = {
  none: {},
  enabled: { transformation: { code: RENAME_TRANSFORMATION, enabled: true } },
  disabled: { transformation: { code: RENAME_TRANSFORMATION, enabled: false } },
};

/** One phase: its record, and what Wirehook's transformation counters and threads did in it. */
interface Phase {
  record: RunRecord;
  /** `wirehook_transformations_total` over the phase, its warm-up included, by result (put_off: no sandbox thread free soon enough; sent later). */
  runs: { send: number; cancel: number; error: number; putOff: number };
  /** Of the put-offs, those after the warm-up was delivered (the measured span's). */
  measuredPutOffs: number;
  /** Mean `wirehook_transformation_duration_seconds` over the phase (a thread's wait, the run, the checks), ms; NaN: none ran. */
  meanMs: number;
  /** Sandbox threads alive in Wirehook's processes at the phase's start and at its end. */
  threadsAtStart: number;
  threadsAtEnd: number;
}

/** A round's phases by label: the second `none` of a list is `noneAgain`. */
type Phases = Partial<Record<'none' | 'noneAgain' | 'enabled' | 'disabled', Phase>>;

/**
 * An endpoint transformation's cost per delivery (issue 45), on the e2e load (`settings.e2e`:
 * its warm-up, count, paced count and consumers, one endpoint each). Each round, every phase on
 * fresh endpoints:
 * - flat out (closed loop at the bench's concurrency, as e2e): endpoints without a
 *   transformation (`none`), the same with the rename (setup/transformation.ts) `enabled`, none
 *   again (`noneAgain`: the noise of two identical phases) and the rename stored with
 *   `enabled: false` (`disabled`): deliveries/s and Wirehook's CPU per delivery of each —
 *   `disabled` against the none phases, beside none again against none;
 * - paced, open loop at half the round's flat-out `enabled` rate (below saturation in each, so
 *   the three run at one rate: Wirehook's CPU per delivery depends on the rate, as its batches
 *   do): `none`, `enabled`, `noneAgain`. What a transformed delivery adds over the mean of the
 *   two none phases, by thread (the sandbox's, the main thread's, the store writer's).
 * CPU is Wirehook's process, all its threads, from /proc (CpuMeter). Each round starts one phase
 * further along FLAT and PACED, so no variant always runs first. Wirehook's
 * `wirehook_transformations_total` is read around each phase: once per delivery in `enabled`,
 * never in the others. Before the rounds, one unmeasured flat-out phase of `disabled` endpoints
 * warms the process; the sandbox threads alive after it and before the first `enabled` phase
 * show that neither path starts one (TransformRunner starts its thread at the first run). The
 * run's record is the paced `enabled` phase's, the rest in its `extra`.
 */
export async function runTransformed(ctx: BenchContext): Promise<ScenarioResult> {
  const { settings, wirehook } = ctx;
  const metricsUrls = Object.values(wirehook.metricsUrls ?? {});
  if (metricsUrls.length === 0) throw new Error("transformed: needs the launcher's metrics URLs (wirehook_transformations_total)");
  const warm = await phase(ctx, metricsUrls, 'transformedwarm', 'disabled');
  ctx.log(`transformed warm-up (disabled): ${warm.record.perSecond}/s; sandbox threads after it: ${warm.threadsAtEnd}`);
  let threadsBeforeFirstEnabled: number | undefined;
  const runs: RunRecord[] = [];
  const flatNoise: number[] = [];
  const pacedNoise: number[] = [];
  let failures = 0;
  for (let n = 1; n <= settings.runs; n++) {
    const phases = async (list: readonly Variant[], prefix: string, perSecond?: number): Promise<Required<Phases>> => {
      const done: Phases = {};
      for (const variant of list.map((_, i) => list[(i + n - 1) % list.length]!)) {
        const label = variant === 'none' && done.none ? 'noneAgain' : variant;
        const result = await phase(ctx, metricsUrls, `transformed${n}${prefix}${label.toLowerCase()}`, variant, perSecond);
        if (variant === 'enabled' && threadsBeforeFirstEnabled === undefined) threadsBeforeFirstEnabled = result.threadsAtStart;
        ctx.log(
          `transformed round ${n} ${prefix} ${label}: ${result.record.perSecond}/s, ${result.record.wirehookCpuUs} µs CPU a delivery (sandbox ` +
            `${part(result.record, SANDBOX_PART)} µs); ${result.runs.send} transformations` +
            (result.runs.putOff > 0 ? ` (${result.runs.putOff} put off, ${result.measuredPutOffs} after the warm-up)` : '') +
            `${Number.isFinite(result.meanMs) ? `, mean ${result.meanMs} ms` : ''}; ` +
            `sandbox threads ${result.threadsAtStart} → ${result.threadsAtEnd}`,
        );
        done[label] = result;
      }
      return done as Required<Phases>;
    };
    const flat = await phases(FLAT, 'flat');
    const perSecond = Math.max(1, Math.round(flat.enabled.record.perSecond * PACED_SHARE));
    const paced = await phases(PACED, 'paced', perSecond);
    const cpu = (p: Phase) => p.record.wirehookCpuUs ?? Number.NaN;
    const rate = (p: Phase) => p.record.perSecond;
    /** The mean of a round's two none phases. */
    const none = (of: Required<Phases>, pick: (p: Phase) => number) => (pick(of.none) + pick(of.noneAgain)) / 2;
    const record = paced.enabled.record;
    const base = none(paced, cpu);
    const cost = cpu(paced.enabled) - base;
    const untransformed = [flat.none, flat.noneAgain, flat.disabled, paced.none, paced.noneAgain];
    Object.assign(record.extra, {
      rotation: n - 1,
      // Flat out.
      nonePerSecond: round(none(flat, rate)),
      enabledPerSecond: rate(flat.enabled),
      disabledPerSecond: rate(flat.disabled),
      rateVsNone: round2(rate(flat.enabled) / none(flat, rate)),
      disabledRateVsNone: round2(rate(flat.disabled) / none(flat, rate)),
      noneAgainRateVsNone: round2(rate(flat.noneAgain) / rate(flat.none)),
      flatNoneCpuUs: round(none(flat, cpu)),
      flatEnabledCpuUs: cpu(flat.enabled),
      flatDisabledCpuUs: cpu(flat.disabled),
      flatSandboxCpuUs: part(flat.enabled.record, SANDBOX_PART),
      flatTransformMeanMs: flat.enabled.meanMs,
      flatNoiseCpuUs: cpu(flat.noneAgain) - cpu(flat.none),
      disabledDeltaCpuUs: round(cpu(flat.disabled) - none(flat, cpu)),
      // Paced, one rate.
      offeredPerSecond: perSecond,
      noneCpuUs: round(base),
      costCpuUs: round(cost),
      costRatio: round2(cpu(paced.enabled) / base),
      sandboxCpuUs: part(record, SANDBOX_PART),
      sandboxShare: round2(part(record, SANDBOX_PART) / cost),
      mainThreadCostUs: round(part(record, MAIN_PART) - none(paced, (p) => part(p.record, MAIN_PART))),
      storeWriterCostUs: round(part(record, WRITER_PART) - none(paced, (p) => part(p.record, WRITER_PART))),
      pacedNoiseCpuUs: cpu(paced.noneAgain) - cpu(paced.none),
      noneP50: paced.none.record.latencyMs?.p50 ?? Number.NaN,
      noneP99: paced.none.record.latencyMs?.p99 ?? Number.NaN,
      nonePeakRssMb: paced.none.record.peakRssMb,
      transformMeanMs: paced.enabled.meanMs,
      // An idle sandbox thread (started by an earlier enabled phase) in the phases that run none.
      idleSandboxCpuUs: Math.max(...untransformed.map((p) => part(p.record, SANDBOX_PART))),
      // Counts.
      transformedRuns: paced.enabled.runs.send + flat.enabled.runs.send,
      transformedExpected: 2 * settings.e2e.warmup + record.delivered + flat.enabled.record.delivered,
      transformFailures: sum([paced.enabled, flat.enabled].map((p) => p.runs.cancel + p.runs.error)),
      // Put off for want of a sandbox thread in the measured spans (warm-ups apart), per delivery.
      flatPutOffs: round2(flat.enabled.measuredPutOffs / Math.max(1, flat.enabled.record.delivered)),
      pacedPutOffs: round2(paced.enabled.measuredPutOffs / Math.max(1, record.delivered)),
      warmupPutOffs: flat.enabled.runs.putOff - flat.enabled.measuredPutOffs + paced.enabled.runs.putOff - paced.enabled.measuredPutOffs,
      untransformedRuns: sum(untransformed.map((p) => p.runs.send + p.runs.cancel + p.runs.error + p.runs.putOff)),
      otherPhasesShort: sum(
        [flat.enabled, ...untransformed].map(
          ({ record: r }) => r.sent - r.accepted + (r.accepted - r.deliveriesCreated) + (r.expectedDelivered - r.delivered) + r.invalid,
        ),
      ),
    });
    if (n === 1) Object.assign(record.extra, { threadsAfterWarmup: warm.threadsAtEnd, threadsBeforeFirstEnabled: threadsBeforeFirstEnabled ?? Number.NaN });
    flatNoise.push(Math.abs(record.extra['flatNoiseCpuUs']!));
    pacedNoise.push(Math.abs(record.extra['pacedNoiseCpuUs']!));
    failures += record.extra['transformFailures']!;
    const x = record.extra as Record<string, number>;
    ctx.log(
      `transformed round ${n}: flat out ${x['enabledPerSecond']}/s with the rename, ${x['disabledPerSecond']}/s disabled, against ${x['nonePerSecond']}/s ` +
        `(none again ${x['noneAgainRateVsNone']} × none); CPU disabled ${signed(x['disabledDeltaCpuUs']!)} µs vs none, ` +
        `none again ${signed(x['flatNoiseCpuUs']!)} µs. ` +
        `At ${perSecond}/s: ${signed(cost)} µs CPU a transformed delivery (${x['costRatio']} × none; sandbox ${x['sandboxCpuUs']} µs, main thread ` +
        `${signed(x['mainThreadCostUs']!)} µs, store writer ${signed(x['storeWriterCostUs']!)} µs), none again ${signed(x['pacedNoiseCpuUs']!)} µs`,
    );
    runs.push(record);
  }
  // Of the whole bench, on every run (their median is itself): the largest none-vs-none differences, and the transformations that failed.
  for (const record of runs) {
    Object.assign(record.extra, { flatNoiseMaxCpuUs: Math.max(...flatNoise), pacedNoiseMaxCpuUs: Math.max(...pacedNoise), transformFailuresTotal: failures });
  }
  return {
    name: 'transformed',
    deliveriesPerMessage: 1,
    description:
      'e2e load, flat out: no transformation, a rename, none again, the rename disabled; ' +
      'paced at half the rename rate: none, rename, none again (record: the paced rename)',
    runs,
  };
}

/**
 * One phase on fresh endpoints of `variant`: the e2e warm-up, then its count flat out or
 * `pacedCount` at `perSecond`, measured; its endpoints deleted after.
 */
async function phase(ctx: BenchContext, metricsUrls: string[], name: string, variant: Variant, perSecond?: number): Promise<Phase> {
  const { settings, wirehook } = ctx;
  const topology = await buildTopology(ctx, {
    name,
    consumers: settings.e2e.consumers,
    endpointsPerConsumer: 1,
    group: () => GROUP,
    endpointFields: FIELDS[variant],
  });
  const threadsAtStart = threadsNamed(wirehook.pids, SANDBOX_COMM);
  const before = await counters(metricsUrls);
  let warmedPutOffs = 0;
  const afterWarmup = async () => {
    warmedPutOffs = (await counters(metricsUrls)).putOff;
  };
  const count = perSecond === undefined ? settings.e2e.count : settings.e2e.pacedCount;
  const { record } = await measureDeliveries(ctx, topology.targets, { warmup: settings.e2e.warmup, count, perSecond, afterWarmup });
  const after = await counters(metricsUrls);
  const threadsAtEnd = threadsNamed(wirehook.pids, SANDBOX_COMM);
  await removeEndpoints(ctx, topology.endpoints);
  const ran = after.count - before.count;
  return {
    record,
    runs: { send: after.send - before.send, cancel: after.cancel - before.cancel, error: after.error - before.error, putOff: after.putOff - before.putOff },
    measuredPutOffs: after.putOff - warmedPutOffs,
    meanMs: ran > 0 ? round(((after.seconds - before.seconds) / ran) * 1000, 3) : Number.NaN,
    threadsAtStart,
    threadsAtEnd,
  };
}

/** Wirehook's transformation counters now, summed over its processes. */
async function counters(metricsUrls: string[]) {
  const read = async (name: string, labels?: Record<string, string>) => sum(await Promise.all(metricsUrls.map((url) => readMetric(url, name, labels))));
  return {
    send: await read('wirehook_transformations_total', { result: 'send' }),
    cancel: await read('wirehook_transformations_total', { result: 'cancel' }),
    error: await read('wirehook_transformations_total', { result: 'error' }),
    putOff: await read('wirehook_transformations_total', { result: 'put_off' }),
    seconds: await read('wirehook_transformation_duration_seconds_sum'),
    count: await read('wirehook_transformation_duration_seconds_count'),
  };
}

/** A part of Wirehook's CPU per delivery in a record, µs (0: none measured). */
function part(record: RunRecord, name: string): number {
  return record.wirehookCpuUsByPart?.[name] ?? 0;
}

/** `value` to one decimal with its sign: +12.5, -3. */
function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${round(value)}`;
}

function round2(value: number): number {
  return round(value, 2);
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
