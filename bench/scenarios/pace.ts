import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchContext } from '../context.ts';
import { WirehookApi } from '../http/wirehook-api.ts';
import { nowMs, type SendOutcome } from '../load/send-messages.ts';
import { type BacklogSample, backlogGrowthPercent } from '../report/backlog-growth.ts';
import type { RunRecord, ScenarioResult } from '../report/records.ts';
import { round } from '../report/stats.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { measureDeliveries } from './delivery-run.ts';

/** The receiver's group of the pace runs' endpoints. */
const GROUP = 'pace';

/**
 * Issue 46's pace check: e2e's load from `settings.pace.senders` (256) closed-loop senders
 * instead of the bench's 64. With that many, intake can accept faster than delivery sends. While
 * they send, the backlog (accepted so far minus the receiver's deliveries so far) is read every
 * `sampleMs`; each run keeps its growth over the send's later part as a percentage of the
 * accepted rate (`backlogGrowthPercent`: report/backlog-growth.ts says why not the two rates'
 * ratio), the backlog at the last accept, the machine's CPUs, and the connections its API client
 * had open as the send ended. The check (report/pace-figures.ts) asks the growth to stay near 0, or Wirehook to use
 * most of the machine's cores: whichever comes first names the limit. Its own API client: the
 * bench's holds 72 connections, and the senders beyond them would wait in the client's queue,
 * not in Wirehook.
 */
export async function runPace(ctx: BenchContext): Promise<ScenarioResult> {
  const { senders, warmup, count, consumers, sampleMs } = ctx.settings.pace;
  const api = new WirehookApi(ctx.wirehook.apiUrl, senders + 8);
  try {
    const pace: BenchContext = { ...ctx, api, settings: { ...ctx.settings, concurrency: senders } };
    const runs: RunRecord[] = [];
    for (let run = 1; run <= ctx.settings.runs; run++) {
      const topology = await buildTopology(pace, { name: `pace${run}`, consumers, endpointsPerConsumer: 1, group: () => GROUP });
      let samples: BacklogSample[] = [];
      let connections = 0;
      const { record, send } = await measureDeliveries(pace, topology.targets, {
        warmup,
        count,
        watchSend: async (live, sending) => {
          samples = await sampleBacklog(ctx, live, sending, sampleMs);
          // Read as the send ends: idle through a long drain, the client closes its connections.
          connections = api.connected;
        },
      });
      await removeEndpoints(pace, topology.endpoints);
      const growth = backlogGrowthPercent(samples);
      if (growth !== null) record.extra['backlogGrowthPercent'] = round(growth, 1);
      record.extra['backlogAtLastAccept'] = send.accepted - (samples.at(-1)?.delivered ?? 0); // read just after it
      record.extra['backlogSamples'] = samples.length;
      record.extra['apiConnections'] = connections;
      record.extra['cpus'] = availableParallelism();
      ctx.log(
        `pace run ${run}: ${senders} senders (${connections} connections), accepted ${record.intake?.perSecond}/s, ` +
          `delivered ${record.perSecond}/s; the backlog grew ${growth === null ? '?' : round(growth, 1)} % of intake ` +
          `(${samples.length} readings, ${record.extra['backlogAtLastAccept']} at the last accept); Wirehook at ${record.cpu.wirehook} % of a core`,
      );
      runs.push(record);
    }
    return {
      name: 'pace',
      deliveriesPerMessage: 1,
      description: `e2e's load from ${senders} closed-loop senders: does delivery keep pace with intake`,
      runs,
    };
  } finally {
    await api.close();
  }
}

/** Reads the backlog every `everyMs` until `sending` settles, and once more then. */
async function sampleBacklog(ctx: BenchContext, live: Readonly<SendOutcome>, sending: Promise<unknown>, everyMs: number): Promise<BacklogSample[]> {
  let sent = false;
  const settled = sending.then(
    () => void (sent = true),
    () => void (sent = true),
  );
  const samples: BacklogSample[] = [];
  for (;;) {
    const last = sent;
    // The receiver's count comes from within the call: the accepted count and the time halfway through it.
    const [before, acceptedBefore] = [nowMs(), live.accepted];
    const delivered = (await ctx.receiver.stats()).groups[GROUP]?.delivered ?? 0;
    samples.push({ at: (before + nowMs()) / 2, accepted: (acceptedBefore + live.accepted) / 2, delivered });
    if (last) return samples;
    await Promise.race([sleep(everyMs), settled]);
  }
}
