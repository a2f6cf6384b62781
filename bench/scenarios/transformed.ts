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
const FLAT: readonly Variant[] = ['none', 'enabled'];
const PACED: readonly Variant[] = ['none', 'enabled', 'none', 'disabled'];
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
  /** `wirehook_transformations_total` over the phase, its warm-up included, by result. */
  runs: { send: number; cancel: number; error: number };
  /** Mean `wirehook_transformation_duration_seconds` over the phase (a thread's wait, the run, the checks), ms; NaN: none ran. */
  meanMs: number;
  /** Sandbox threads alive in Wirehook's processes at the phase's start and at its end. */
  threadsAtStart: number;
  threadsAtEnd: number;
}

/**
 * An endpoint transformation's cost per delivery (issue 45), on the e2e load (`settings.e2e`:
 * its warm-up, count, paced count and consumers, one endpoint each). Each round, every phase on
 * fresh endpoints:
 * - flat out (closed loop at the bench's concurrency, as e2e): endpoints without a
 *   transformation (`none`) and the same with the rename (setup/transformation.ts) `enabled`:
 *   deliveries/s of each;
 * - paced, open loop at half the round's flat-out `enabled` rate (below saturation in all four,
 *   so the store's batches are alike and CPU per delivery compares the work, not the batching):
 *   `none`, `enabled`, none again (`noneAgain`: the noise of two identical phases) and the rename
 *   stored with `enabled: false` (`disabled`). Wirehook's CPU per delivery (all its threads, from
 *   /proc), the sandbox thread's, the main thread's and the store writer's apart; what a
 *   transformed delivery adds over the mean of the two `none` phases; `disabled` against that
 *   mean, beside the none-vs-none difference.
 * Each round starts one phase further along FLAT and PACED, so no variant always runs first.
 * Wirehook's `wirehook_transformations_total` is read around each phase: once per delivery in
 * `enabled`, never in the others. Before the rounds, one unmeasured flat-out phase of `disabled`
 * endpoints warms the process; the sandbox threads alive after it and before the first
 * `enabled` phase show that neither path starts one (TransformRunner starts its thread at the
 * first run). The run's record is the paced `enabled` phase's, the rest in its `extra`.
 */
export async function runTransformed(ctx: BenchContext): Promise<ScenarioResult> {
  const { settings, wirehook } = ctx;
  const metricsUrls = Object.values(wirehook.metricsUrls ?? {});
  if (metricsUrls.length === 0) throw new Error("transformed: needs the launcher's metrics URLs (wirehook_transformations_total)");
  const warm = await phase(ctx, metricsUrls, 'transformedwarm', 'disabled');
  ctx.log(`transformed warm-up (disabled): ${warm.record.perSecond}/s; sandbox threads after it: ${warm.threadsAtEnd}`);
  let threadsBeforeFirstEnabled: number | undefined;
  const runs: RunRecord[] = [];
  const noise: number[] = [];
  let failures = 0;
  for (let n = 1; n <= settings.runs; n++) {
    const rotated = <T>(list: readonly T[]) => list.map((_, i) => list[(i + n - 1) % list.length]!);
    const run = async (label: string, variant: Variant, perSecond?: number) => {
      const done = await phase(ctx, metricsUrls, `transformed${n}${label.toLowerCase()}`, variant, perSecond);
      if (variant === 'enabled' && threadsBeforeFirstEnabled === undefined) threadsBeforeFirstEnabled = done.threadsAtStart;
      ctx.log(
        `transformed round ${n} ${label}: ${done.record.perSecond}/s, ${done.record.wirehookCpuUs} µs CPU a delivery ` +
          `(sandbox ${part(done.record, SANDBOX_PART)} µs); ${done.runs.send} transformations${Number.isFinite(done.meanMs) ? `, mean ${done.meanMs} ms` : ''}; sandbox threads ${done.threadsAtStart} → ${done.threadsAtEnd}`,
      );
      return done;
    };
    const flat: Partial<Record<Variant, Phase>> = {};
    for (const variant of rotated(FLAT)) flat[variant] = await run(`flat${variant}`, variant);
    const perSecond = Math.max(1, Math.round(flat.enabled!.record.perSecond * PACED_SHARE));
    const paced: Partial<Record<'none' | 'noneAgain' | 'enabled' | 'disabled', Phase>> = {};
    for (const variant of rotated(PACED)) {
      const label = variant === 'none' && paced.none ? 'noneAgain' : variant;
      paced[label] = await run(label, variant, perSecond);
    }
    const { none, noneAgain, enabled, disabled } = paced as Required<typeof paced>;
    const cpu = (p: Phase) => p.record.wirehookCpuUs ?? Number.NaN;
    const noneMean = (name: string) => (part(none.record, name) + part(noneAgain.record, name)) / 2;
    const base = (cpu(none) + cpu(noneAgain)) / 2;
    const cost = cpu(enabled) - base;
    const others = [flat.none!, none, noneAgain, disabled];
    const record = enabled.record;
    Object.assign(record.extra, {
      rotation: n - 1,
      nonePerSecond: flat.none!.record.perSecond,
      enabledPerSecond: flat.enabled!.record.perSecond,
      rateVsNone: round2(flat.enabled!.record.perSecond / flat.none!.record.perSecond),
      flatNoneCpuUs: cpu(flat.none!),
      flatEnabledCpuUs: cpu(flat.enabled!),
      flatSandboxCpuUs: part(flat.enabled!.record, SANDBOX_PART),
      flatTransformMeanMs: flat.enabled!.meanMs,
      offeredPerSecond: perSecond,
      noneCpuUs: cpu(none),
      noneAgainCpuUs: cpu(noneAgain),
      disabledCpuUs: cpu(disabled),
      baseCpuUs: round(base),
      costCpuUs: round(cost),
      costRatio: round2(cpu(enabled) / base),
      sandboxCpuUs: part(record, SANDBOX_PART),
      sandboxShare: round2(part(record, SANDBOX_PART) / cost),
      mainThreadCostUs: round(part(record, MAIN_PART) - noneMean(MAIN_PART)),
      storeWriterCostUs: round(part(record, WRITER_PART) - noneMean(WRITER_PART)),
      noiseCpuUs: cpu(noneAgain) - cpu(none),
      disabledDeltaCpuUs: round(cpu(disabled) - base),
      disabledRatio: round2(cpu(disabled) / base),
      // An idle sandbox thread (started by an earlier enabled phase) in the phases that run none.
      idleSandboxCpuUs: Math.max(...others.map((p) => part(p.record, SANDBOX_PART))),
      noneP50: none.record.latencyMs?.p50 ?? Number.NaN,
      noneP99: none.record.latencyMs?.p99 ?? Number.NaN,
      nonePeakRssMb: none.record.peakRssMb,
      transformMeanMs: enabled.meanMs,
      transformedRuns: enabled.runs.send + flat.enabled!.runs.send,
      transformedExpected: 2 * settings.e2e.warmup + record.delivered + flat.enabled!.record.delivered,
      transformFailures: enabled.runs.cancel + enabled.runs.error + flat.enabled!.runs.cancel + flat.enabled!.runs.error,
      untransformedRuns: sum(others.map((p) => p.runs.send + p.runs.cancel + p.runs.error)),
      otherPhasesShort: sum(
        [flat.enabled!, ...others].map(
          ({ record: r }) => r.sent - r.accepted + (r.accepted - r.deliveriesCreated) + (r.expectedDelivered - r.delivered) + r.invalid,
        ),
      ),
    });
    if (n === 1) Object.assign(record.extra, { threadsAfterWarmup: warm.threadsAtEnd, threadsBeforeFirstEnabled: threadsBeforeFirstEnabled ?? Number.NaN });
    noise.push(Math.abs(cpu(noneAgain) - cpu(none)));
    failures += record.extra['transformFailures']!;
    ctx.log(
      `transformed round ${n}: flat out ${flat.enabled!.record.perSecond}/s against ${flat.none!.record.perSecond}/s; at ${perSecond}/s ` +
        `${signed(cost)} µs CPU a transformed delivery (${record.extra['costRatio']} × none; sandbox ${record.extra['sandboxCpuUs']} µs, ` +
        `main thread ${signed(record.extra['mainThreadCostUs']!)} µs, store writer ${signed(record.extra['storeWriterCostUs']!)} µs); ` +
        `disabled ${signed(record.extra['disabledDeltaCpuUs']!)} µs vs none, none again ${signed(record.extra['noiseCpuUs']!)} µs`,
    );
    runs.push(record);
  }
  // Of the whole bench, on every run (their median is itself): the largest none-vs-none difference, and the transformations that failed.
  for (const record of runs) Object.assign(record.extra, { noiseMaxCpuUs: Math.max(...noise), transformFailuresTotal: failures });
  return {
    name: 'transformed',
    deliveriesPerMessage: 1,
    description:
      'e2e load: flat out to endpoints with no transformation and with a rename; then paced at half the transformed rate: none, rename, none again, rename disabled (record: the paced rename)',
    runs,
  };
}

/** One phase on fresh endpoints of `variant`: the e2e warm-up, then its count flat out or `pacedCount` at `perSecond`, measured; its endpoints deleted after. */
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
  const count = perSecond === undefined ? settings.e2e.count : settings.e2e.pacedCount;
  const { record } = await measureDeliveries(ctx, topology.targets, { warmup: settings.e2e.warmup, count, perSecond });
  const after = await counters(metricsUrls);
  const threadsAtEnd = threadsNamed(wirehook.pids, SANDBOX_COMM);
  await removeEndpoints(ctx, topology.endpoints);
  const ran = after.count - before.count;
  return {
    record,
    runs: { send: after.send - before.send, cancel: after.cancel - before.cancel, error: after.error - before.error },
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
