import type { BenchContext } from '../context.ts';
import { nowMs, sendMessages } from '../load/send-messages.ts';
import { CpuMeter, rssBytes } from '../report/proc-stats.ts';
import { recordCpuPerUnit, emptyRecord, type ScenarioResult } from '../report/records.ts';
import { round } from '../report/stats.ts';
import { FANOUT_ENDPOINTS } from '../settings.ts';
import { buildTopology, removeEndpoints, setStatus } from '../setup/topology.ts';
import { intakeOf, waitForDeliveries } from './delivery-run.ts';

const GROUP = 'backlog';

/**
 * Backlog: every endpoint paused (PATCH), `messages` × 20 deliveries queued behind them,
 * then every endpoint resumed at once. Peak RSS of Wirehook over the whole of it, and the
 * drain rate from the first resume to the last delivery. Runs once; the bench restarts
 * Wirehook before it (same data), so the peak is the backlog's own.
 */
export async function runBacklog(ctx: BenchContext): Promise<ScenarioResult> {
  const { settings, receiver, api } = ctx;
  const { messages, consumers } = settings.backlog;
  const topology = await buildTopology(ctx, {
    name: 'backlog',
    consumers,
    endpointsPerConsumer: FANOUT_ENDPOINTS,
    group: () => GROUP,
    paused: true,
  });
  await receiver.reset();
  const idleRss = ctx.wirehook.pids.reduce((sum, pid) => sum + rssBytes(pid), 0);
  const meter = new CpuMeter({ wirehook: ctx.wirehook.pids, receiver: receiver.pid });
  const send = await sendMessages(api, topology.targets, 0, messages, settings.concurrency);
  const queued = send.deliveriesCreated;
  ctx.log(`backlog: ${queued} deliveries queued in ${round((send.finishedAt - send.startedAt) / 1000)} s; resuming`);
  const heldBeforeResume = (await receiver.stats()).groups[GROUP]?.delivered ?? 0;

  const resumedAt = nowMs();
  await setStatus(ctx, topology.endpoints, 'active');
  const resumeSeconds = (nowMs() - resumedAt) / 1000;
  await waitForDeliveries(ctx, { [GROUP]: queued }, new Set(), `a backlog of ${queued}`);
  const usage = meter.stop();
  const stats = await receiver.stats(true);
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
  record.cpu = usage.cpu;
  record.runQueue = usage.runQueue;
  recordCpuPerUnit(record, usage, record.delivered);
  record.peakRssMb = round(usage.peakRssBytes / 2 ** 20);
  record.extra = { idleRssMb: round(idleRss / 2 ** 20), heldBeforeResume, resumeSeconds: round(resumeSeconds, 2) };
  ctx.log(`backlog: drained ${record.delivered} at ${record.perSecond}/s, peak RSS ${record.peakRssMb} MB`);
  return {
    name: 'backlog',
    deliveriesPerMessage: FANOUT_ENDPOINTS,
    description: `${queued} deliveries held behind paused endpoints, then resumed`,
    runs: [record],
  };
}
