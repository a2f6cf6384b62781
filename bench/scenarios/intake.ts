import type { BenchContext } from '../context.ts';
import { sendMessages } from '../load/send-messages.ts';
import { CpuMeter } from '../report/proc-stats.ts';
import { recordUsage, emptyRecord, type RunRecord, type ScenarioResult } from '../report/records.ts';
import { round } from '../report/stats.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { intakeOf } from './delivery-run.ts';

/**
 * POST /v1/messages alone: each message goes to a consumer whose one endpoint is paused,
 * so the whole write (message, delivery, counters, dispatch job) happens and nothing is
 * sent. Accepted per second and request latency at the bench's concurrency.
 */
export async function runIntake(ctx: BenchContext): Promise<ScenarioResult> {
  const { settings, receiver, api } = ctx;
  const runs: RunRecord[] = [];
  for (let run = 1; run <= settings.runs; run++) {
    const topology = await buildTopology(ctx, {
      name: `intake${run}`,
      consumers: settings.intake.consumers,
      endpointsPerConsumer: 1,
      group: () => 'intake',
      paused: true,
    });
    await sendMessages(api, topology.targets, 0, settings.intake.warmup, settings.concurrency);
    await receiver.reset();
    const meter = new CpuMeter({ wirehook: ctx.wirehook.pids, receiver: receiver.pid });
    const send = await sendMessages(api, topology.targets, settings.intake.warmup, settings.intake.count, settings.concurrency);
    const usage = meter.stop();
    const stats = await receiver.stats();
    await removeEndpoints(ctx, topology.endpoints);

    const record = emptyRecord();
    record.sent = send.sent;
    record.accepted = send.accepted;
    record.rejected = send.rejected;
    record.deliveriesCreated = send.deliveriesCreated;
    record.expectedDelivered = 0;
    record.notDelivered = send.deliveriesCreated; // held by the paused endpoints
    record.delivered = stats.groups['intake']?.delivered ?? 0;
    record.invalid = stats.invalid + stats.unknownRoute;
    record.intake = intakeOf(send);
    record.seconds = round((send.finishedAt - send.startedAt) / 1000, 3);
    record.perSecond = record.intake!.perSecond;
    recordUsage(record, usage, record.accepted);
    ctx.log(`intake run ${run}: ${record.perSecond}/s, p99 ${record.intake!.latencyMs?.p99} ms`);
    runs.push(record);
  }
  return { name: 'intake', deliveriesPerMessage: 1, description: 'POST /v1/messages, 1 delivery each to a paused endpoint (written, not sent)', runs };
}
