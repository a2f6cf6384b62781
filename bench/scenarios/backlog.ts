import type { BenchContext } from '../context.ts';
import { ProbePair, type ProbeFigures } from '../load/probe-pair.ts';
import { nowMs, sendMessages } from '../load/send-messages.ts';
import { CpuMeter, rssBytes } from '../report/proc-stats.ts';
import { recordUsage, emptyRecord, type ScenarioResult } from '../report/records.ts';
import { round } from '../report/stats.ts';
import { FANOUT_ENDPOINTS } from '../settings.ts';
import { buildTopology, removeEndpoints, setStatus } from '../setup/topology.ts';
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
  // The API probe and its control through the drain: delivery at its maximum rate with no
  // senders beside it (e2e has 64), the other reading of the probe target.
  const probes = await ProbePair.start(ctx, 'backlog');
  let stats: Awaited<ReturnType<typeof receiver.stats>>;
  let usage: ReturnType<typeof meter.stop>;
  let resumedAt: number;
  let resumeSeconds: number;
  let probed: ProbeFigures;
  try {
    await probes.measureIdle(settings.e2e.probeIdleMs);
    resumedAt = nowMs();
    await setStatus(ctx, topology.endpoints, 'active');
    resumeSeconds = (nowMs() - resumedAt) / 1000;
    await waitForDeliveries(ctx, { [GROUP]: queued }, new Set(), `a backlog of ${queued}`);
    usage = meter.stop();
    stats = await receiver.stats(true);
    const { probes: count, controlProbes, ...figures } = await probes.figures(resumedAt, stats.groups[GROUP]?.lastAt ?? nowMs());
    probed = figures;
    ctx.log(
      `backlog: API probe p99 ${figures.probeP99} ms (${count} probes) against ${figures.probeIdleP99} ms idle; ` +
        `the control's ${figures.controlProbeP99} ms (${controlProbes}) against ${figures.controlProbeIdleP99} ms idle`,
    );
  } finally {
    await probes.stop();
  }
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
  record.extra = { idleRssMb: round(idleRss / 2 ** 20), heldBeforeResume, resumeSeconds: round(resumeSeconds, 2), ...probed };
  ctx.log(`backlog: drained ${record.delivered} at ${record.perSecond}/s, peak RSS ${record.peakRssMb} MB`);
  return {
    name: 'backlog',
    deliveriesPerMessage: FANOUT_ENDPOINTS,
    description: `${queued} deliveries held behind paused endpoints, then resumed`,
    runs: [record],
  };
}
