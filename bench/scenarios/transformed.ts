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
/** A round's phases; each round starts one further along (round 1: none, enabled, none, disabled; round 2: enabled, none, disabled, none; …). */
const ROUND: readonly Variant[] = ['none', 'enabled', 'none', 'disabled'];
/** The report's part of Wirehook's CPU that is the sandbox threads (cpu-parts.ts). */
const SANDBOX_PART = 'transform sandbox';
const MAIN_PART = 'main thread';
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
  /** Mean `wirehook_transformation_duration_seconds` over the phase (a thread's wait, the run, the checks), ms; null: none ran. */
  meanMs: number | null;
  /** Sandbox threads alive in Wirehook's processes at the phase's start and at its end. */
  threadsAtStart: number;
  threadsAtEnd: number;
}

/**
 * An endpoint transformation's cost per delivery (issue 45), on the e2e load (`settings.e2e`:
 * its warm-up, count and consumers, one endpoint each, closed loop at the bench's
 * concurrency). Each round runs four phases on fresh endpoints, alternated: endpoints without a
 * transformation (`none`), the same with the rename (setup/transformation.ts) `enabled`, none
 * again (`noneAgain`: the noise between two identical phases), and the rename stored with
 * `enabled: false` (`disabled`); each round starts one phase further along ROUND, so no
 * variant always runs first or last. Per phase deliveries/s and Wirehook's CPU per delivery
 * (all its threads, from /proc), the sandbox thread's and the main thread's apart; per round,
 * the CPU a transformed delivery adds over the mean of the two `none` phases, and the
 * `disabled` and `noneAgain` phases against `none`. Wirehook's `wirehook_transformations_total`
 * is read around each phase: once per delivery in `enabled`, never in the others.
 * Before the rounds, one unmeasured phase of `disabled` endpoints warms the process; the
 * sandbox threads alive after it (and before the first `enabled` phase) show that neither
 * path starts one — TransformRunner starts its thread at the first run.
 * The run's record is the `enabled` phase's, the other phases' figures in its `extra`.
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
  for (let n = 1; n <= settings.runs; n++) {
    const order = ROUND.map((_, i) => ROUND[(i + n - 1) % ROUND.length]!);
    const phases: Partial<Record<'none' | 'noneAgain' | 'enabled' | 'disabled', Phase>> = {};
    for (const variant of order) {
      const label = variant === 'none' && phases.none ? 'noneAgain' : variant;
      const done = await phase(ctx, metricsUrls, `transformed${n}${label.toLowerCase()}`, variant);
      if (variant === 'enabled' && threadsBeforeFirstEnabled === undefined) threadsBeforeFirstEnabled = done.threadsAtStart;
      phases[label] = done;
      ctx.log(
        `transformed round ${n} ${label}: ${done.record.perSecond}/s, ${done.record.wirehookCpuUs} µs CPU a delivery ` +
          `(sandbox ${part(done.record, SANDBOX_PART)} µs); ${done.runs.send} transformations; sandbox threads ${done.threadsAtStart} → ${done.threadsAtEnd}`,
      );
    }
    const { none, noneAgain, enabled, disabled } = phases as Required<typeof phases>;
    const cpu = (p: Phase) => p.record.wirehookCpuUs ?? Number.NaN;
    const base = (cpu(none) + cpu(noneAgain)) / 2;
    const baseMain = (part(none.record, MAIN_PART) + part(noneAgain.record, MAIN_PART)) / 2;
    const cost = cpu(enabled) - base;
    const others = [none, noneAgain, disabled];
    const record = enabled.record;
    Object.assign(record.extra, {
      rotation: n - 1,
      nonePerSecond: none.record.perSecond,
      noneAgainPerSecond: noneAgain.record.perSecond,
      disabledPerSecond: disabled.record.perSecond,
      rateVsNone: round2(record.perSecond / ((none.record.perSecond + noneAgain.record.perSecond) / 2)),
      noneCpuUs: cpu(none),
      noneAgainCpuUs: cpu(noneAgain),
      disabledCpuUs: cpu(disabled),
      baseCpuUs: round(base),
      costCpuUs: round(cost),
      costRatio: round2(cpu(enabled) / base),
      sandboxCpuUs: part(record, SANDBOX_PART),
      sandboxShare: round2(part(record, SANDBOX_PART) / cost),
      mainThreadCostUs: round(part(record, MAIN_PART) - baseMain),
      noiseCpuUs: cpu(noneAgain) - cpu(none),
      disabledDeltaCpuUs: round(cpu(disabled) - base),
      disabledRatio: round2(cpu(disabled) / base),
      // An idle sandbox thread (started by an earlier enabled phase) in the phases that run none.
      idleSandboxCpuUs: Math.max(...others.map((p) => part(p.record, SANDBOX_PART))),
      nonePeakRssMb: none.record.peakRssMb,
      transformMeanMs: enabled.meanMs ?? Number.NaN,
      transformedRuns: enabled.runs.send,
      transformedExpected: settings.e2e.warmup + record.delivered,
      transformFailures: enabled.runs.cancel + enabled.runs.error,
      untransformedRuns: sum(others.map((p) => p.runs.send + p.runs.cancel + p.runs.error)),
      otherPhasesShort: sum(
        others.map(({ record: r }) => r.sent - r.accepted + (r.accepted - r.deliveriesCreated) + (r.expectedDelivered - r.delivered) + r.invalid),
      ),
    });
    if (n === 1) Object.assign(record.extra, { threadsAfterWarmup: warm.threadsAtEnd, threadsBeforeFirstEnabled: threadsBeforeFirstEnabled ?? Number.NaN });
    noise.push(Math.abs(cpu(noneAgain) - cpu(none)));
    ctx.log(
      `transformed round ${n}: ${signed(cost)} µs CPU a transformed delivery (${record.extra['costRatio']} × none; sandbox ${record.extra['sandboxCpuUs']} µs, ` +
        `main thread ${signed(record.extra['mainThreadCostUs']!)} µs); disabled ${signed(record.extra['disabledDeltaCpuUs']!)} µs vs none, none again ${signed(record.extra['noiseCpuUs']!)} µs`,
    );
    runs.push(record);
  }
  // The noise bound of every run: the largest none-vs-none difference of the bench (its median is itself).
  for (const record of runs) record.extra['noiseMaxCpuUs'] = Math.max(...noise);
  return {
    name: 'transformed',
    deliveriesPerMessage: 1,
    description: 'e2e load to endpoints with a rename transformation, alternated with none, none again and disabled (record: the transformed phase)',
    runs,
  };
}

/** One phase on fresh endpoints of `variant`: the e2e warm-up and count, measured; its endpoints deleted after. */
async function phase(ctx: BenchContext, metricsUrls: string[], name: string, variant: Variant): Promise<Phase> {
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
  const { record } = await measureDeliveries(ctx, topology.targets, { warmup: settings.e2e.warmup, count: settings.e2e.count });
  const after = await counters(metricsUrls);
  const threadsAtEnd = threadsNamed(wirehook.pids, SANDBOX_COMM);
  await removeEndpoints(ctx, topology.endpoints);
  const ran = after.count - before.count;
  return {
    record,
    runs: { send: after.send - before.send, cancel: after.cancel - before.cancel, error: after.error - before.error },
    meanMs: ran > 0 ? round(((after.seconds - before.seconds) / ran) * 1000, 3) : null,
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
