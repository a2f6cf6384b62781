import type { BenchContext } from '../context.ts';
import { emptyOutcome, nowMs, sendMessages, sendPaced, type SendOutcome } from '../load/send-messages.ts';
import type { GroupStats, ReceiverStats } from '../receiver/protocol.ts';
import { CpuMeter } from '../report/proc-stats.ts';
import { recordUsage, emptyRecord, type RunRecord } from '../report/records.ts';
import { round } from '../report/stats.ts';
import { expectedByGroup, type Target } from '../setup/topology.ts';

/** Receiver groups whose routes answer 500 (their deliveries are never `delivered`). */
export type FailingGroups = ReadonlySet<string>;

/** How a phase sends: `warmup` then `count` messages, closed loop at the bench's concurrency unless paced. */
export interface MeasureOptions {
  warmup: number;
  count: number;
  failing?: FailingGroups;
  /** Open loop at this many messages per second (at most the bench's concurrency in flight). */
  perSecond?: number;
  /** Called once the warm-up is delivered, before the measured span (e.g. to read Wirehook's counters). */
  afterWarmup?: () => Promise<void>;
  /** Watches the measured closed-loop send while it runs (`live`: its counts so far), until `sending` settles. */
  watchSend?: (live: Readonly<SendOutcome>, sending: Promise<unknown>) => Promise<void>;
}

/** What one measured phase saw. */
export interface MeasuredPhase {
  record: RunRecord;
  send: SendOutcome;
  stats: ReceiverStats;
  /** When the measured sends began (Unix ms). */
  startedAt: number;
}

/**
 * Sends `warmup` messages and waits for them, forgets the counters, then sends `count`
 * more (closed loop at the bench's concurrency, or paced) and waits until every delivery to an `ok` route has
 * arrived (and every first attempt to a failing one). The rate is deliveries to `ok`
 * routes over the span from the first measured send to the last of them received.
 */
export async function measureDeliveries(ctx: BenchContext, targets: Target[], options: MeasureOptions): Promise<MeasuredPhase> {
  const { api, receiver, settings } = ctx;
  const { warmup, count, failing = new Set(), perSecond, afterWarmup } = options;
  if (perSecond !== undefined && options.watchSend) throw new Error('measureDeliveries: watchSend is for a closed-loop send');
  if (warmup > 0) {
    await receiver.reset();
    await sendMessages(api, targets, 0, warmup, settings.concurrency);
    await waitForDeliveries(ctx, expectedByGroup(targets, 0, warmup), failing, 'the warm-up');
  }
  await afterWarmup?.();
  await receiver.reset();
  const meter = new CpuMeter({ wirehook: ctx.wirehook.pids, receiver: receiver.pid });
  const startedAt = nowMs();
  let send: SendOutcome;
  if (perSecond === undefined) {
    const live = emptyOutcome();
    const sending = sendMessages(api, targets, warmup, count, settings.concurrency, live);
    // Both settled before either's failure is thrown: none unheard, and no send left running behind a failed watcher.
    const [sent, watched] = await Promise.allSettled([sending, options.watchSend?.(live, sending)]);
    if (sent.status === 'rejected') throw sent.reason;
    if (watched.status === 'rejected') throw watched.reason;
    send = sent.value;
  } else {
    send = await sendPaced(api, targets, warmup, count, perSecond, settings.concurrency);
  }
  const expected = expectedByGroup(targets, warmup, count);
  await waitForDeliveries(ctx, expected, failing, `${count} messages`);
  const usage = meter.stop();
  const stats = await receiver.stats(true);

  const record = emptyRecord();
  const okGroups = Object.keys(expected).filter((g) => !failing.has(g));
  const lastAt = Math.max(...okGroups.map((g) => stats.groups[g]?.lastAt ?? startedAt));
  record.sent = send.sent;
  record.accepted = send.accepted;
  record.rejected = send.rejected;
  record.deliveriesCreated = send.deliveriesCreated;
  record.expectedDelivered = sum(okGroups.map((g) => expected[g]!));
  record.notDelivered = sum(
    Object.keys(expected)
      .filter((g) => failing.has(g))
      .map((g) => expected[g]!),
  );
  record.delivered = sum(okGroups.map((g) => stats.groups[g]?.delivered ?? 0));
  record.duplicates = sum(Object.values(stats.groups).map((g) => g.duplicates));
  record.failedAnswers = sum(Object.values(stats.groups).map((g) => g.failed));
  record.invalid = stats.invalid + stats.unknownRoute;
  record.seconds = round((lastAt - startedAt) / 1000, 3);
  record.perSecond = round(record.delivered / Math.max(0.001, record.seconds));
  record.intake = intakeOf(send);
  record.latencyMs = stats.latencyMs ? roundLatency(stats.latencyMs) : null;
  recordUsage(record, usage, record.delivered);
  return { record, send, stats, startedAt };
}

/** Polls the receiver until every `ok` group has its deliveries and every failing group its first attempts. */
export async function waitForDeliveries(ctx: BenchContext, expected: Record<string, number>, failing: FailingGroups, what: string): Promise<ReceiverStats> {
  return ctx.receiver.waitFor(
    (stats) =>
      Object.entries(expected).every(([group, n]) => {
        const got = stats.groups[group];
        return failing.has(group) ? (got?.failed ?? 0) >= n : (got?.delivered ?? 0) >= n;
      }),
    ctx.settings.waitMs,
    `the deliveries of ${what}`,
  );
}

/** The API side of a burst: accepted per second and latency. */
export function intakeOf(send: SendOutcome): RunRecord['intake'] {
  const seconds = Math.max(0.001, (send.finishedAt - send.startedAt) / 1000);
  const latency = send.latency.summary();
  return { perSecond: round(send.accepted / seconds), latencyMs: latency && roundLatency(latency) };
}

/** The rate of one group over the span from `startedAt` to its last delivery. */
export function groupRate(group: GroupStats | undefined, startedAt: number): number {
  if (!group || group.lastAt === null || group.delivered === 0) return 0;
  return round(group.delivered / Math.max(0.001, (group.lastAt - startedAt) / 1000));
}

function roundLatency(l: { p50: number; p99: number; max: number }): { p50: number; p99: number; max: number } {
  return { p50: round(l.p50), p99: round(l.p99), max: round(l.max) };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
