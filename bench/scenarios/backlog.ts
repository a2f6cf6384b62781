import type { BenchContext } from '../context.ts';
import { ProbePair } from '../load/probe-pair.ts';
import { nowMs, sendMessages } from '../load/send-messages.ts';
import { CpuMeter, rssBytes } from '../report/proc-stats.ts';
import { markRunQueue, runQueueSince } from '../report/run-queue.ts';
import { recordUsage, emptyRecord, type ScenarioResult } from '../report/records.ts';
import { round } from '../report/stats.ts';
import { FANOUT_ENDPOINTS } from '../settings.ts';
import { buildTopology, removeEndpoints, setStatus, type Topology } from '../setup/topology.ts';
import { intakeOf, waitForDeliveries } from './delivery-run.ts';

const GROUP = 'backlog';

/**
 * Backlog: every endpoint paused (PATCH), `messages` × 20 deliveries queued behind them,
 * then every endpoint resumed at once. Peak RSS of Wirehook over the whole of it, the
 * drain rate from the first resume to the last delivery, and the API probe and its control
 * over the drain against their idle p99s (measured just before the resume). Runs once; the bench restarts
 * Wirehook before it (same data), so the peak is the backlog's own.
 */
export async function runBacklog(ctx: BenchContext): Promise<ScenarioResult> {
  const { receiver } = ctx;
  const topology = await buildTopology(ctx, {
    name: 'backlog',
    consumers: ctx.settings.backlog.consumers,
    endpointsPerConsumer: FANOUT_ENDPOINTS,
    group: () => GROUP,
    paused: true,
  });
  await receiver.reset();
  // The API probe and its control through the drain: delivery at its maximum rate with no
  // senders beside it (e2e has 64), the other reading of the probe target.
  const { send, idleRss, heldBeforeResume, resumedAt, resumeSeconds, drainRunQueue, usage, stats, probed } = await ProbePair.around(ctx, 'backlog', (probes) =>
    queueAndDrain(ctx, topology, probes),
  );
  const queued = send.deliveriesCreated;
  await removeEndpoints(ctx, topology.endpoints);

  const group = stats.groups[GROUP];
  const record = emptyRecord();
  record.sent = send.sent;
  record.accepted = send.accepted;
  record.rejected = send.rejected;
  record.deliveriesCreated = queued;
  record.expectedDelivered = queued;
  record.delivered = group?.delivered ?? 0;
  record.duplicates = group?.duplicates ?? 0;
  record.invalid = stats.invalid + stats.unknownRoute;
  record.seconds = round(((group?.lastAt ?? resumedAt) - resumedAt) / 1000, 3);
  record.perSecond = round(record.delivered / Math.max(0.001, record.seconds));
  record.intake = intakeOf(send);
  recordUsage(record, usage, record.delivered);
  record.extra = {
    idleRssMb: round(idleRss / 2 ** 20),
    heldBeforeResume,
    resumeSeconds: round(resumeSeconds, 2),
    ...probed,
    // The drain's own run queue (the record's covers the sends as well).
    ...(drainRunQueue === null ? {} : { drainRunnable: drainRunQueue.mean, drainOverCpusPercent: drainRunQueue.overCpusPercent }),
  };
  ctx.log(`backlog: drained ${record.delivered} at ${record.perSecond}/s, peak RSS ${record.peakRssMb} MB`);
  return {
    name: 'backlog',
    deliveriesPerMessage: FANOUT_ENDPOINTS,
    description: `${queued} deliveries held behind paused endpoints, then resumed`,
    runs: [record],
  };
}

/**
 * The probes' idle window first (Wirehook idle, outside the CPU meter's span), then the
 * backlog queued behind paused endpoints, every endpoint resumed, and the drain waited for.
 */
async function queueAndDrain(ctx: BenchContext, topology: Topology, probes: ProbePair) {
  const { settings, receiver, api } = ctx;
  await probes.measureIdle(settings.e2e.probeIdleMs);
  const idleRss = ctx.wirehook.pids.reduce((sum, pid) => sum + rssBytes(pid), 0);
  const meter = new CpuMeter({ wirehook: ctx.wirehook.pids, receiver: receiver.pid });
  const send = await sendMessages(api, topology.targets, 0, settings.backlog.messages, settings.concurrency);
  ctx.log(`backlog: ${send.deliveriesCreated} deliveries queued in ${round((send.finishedAt - send.startedAt) / 1000)} s; resuming`);
  const heldBeforeResume = (await receiver.stats()).groups[GROUP]?.delivered ?? 0;
  const resumedAt = nowMs();
  await setStatus(ctx, topology.endpoints, 'active');
  const resumed = nowMs();
  // From the last resume on: the PATCHes that resumed the endpoints are API load of their own.
  const drainMark = markRunQueue();
  await waitForDeliveries(ctx, { [GROUP]: send.deliveriesCreated }, new Set(), `a backlog of ${send.deliveriesCreated}`);
  const drainRunQueue = runQueueSince(drainMark);
  const usage = meter.stop();
  const stats = await receiver.stats(true);
  const { figures: probed, summary } = await probes.measure(resumed, stats.groups[GROUP]?.lastAt ?? nowMs());
  ctx.log(`backlog: ${summary}`);
  return { send, idleRss, heldBeforeResume, resumedAt, resumeSeconds: (resumed - resumedAt) / 1000, drainRunQueue, usage, stats, probed };
}
