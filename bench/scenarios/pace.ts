import { availableParallelism } from 'node:os';
import type { BenchContext } from '../context.ts';
import { WirehookApi } from '../http/wirehook-api.ts';
import type { RunRecord, ScenarioResult } from '../report/records.ts';
import { round } from '../report/stats.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { measureDeliveries } from './delivery-run.ts';

/**
 * Issue 46's pace check: e2e's load from `settings.pace.senders` (256) closed-loop senders
 * instead of the bench's 64. With that many, intake can accept faster than delivery sends; a
 * backlog that grows leaves the last receipt behind the last accept by what is still to send,
 * so delivery's rate over its span (first send to last receipt) falls below intake's over its
 * own (first send to last accept) by exactly the ratio of the two rates. Each run keeps that
 * ratio as a percentage (`deliveredPercent`: the medians keep one decimal) and the machine's
 * CPUs; the check (report/pace-figures.ts) asks it to stay near 100, or Wirehook to use most
 * of the machine's cores: whichever comes first names the limit.
 * Its own API client: the bench's holds 72 connections, and a sender without one would wait
 * in the client's queue, not in Wirehook.
 */
export async function runPace(ctx: BenchContext): Promise<ScenarioResult> {
  const { senders, warmup, count, consumers } = ctx.settings.pace;
  const api = new WirehookApi(ctx.wirehook.apiUrl, senders + 8);
  try {
    const pace: BenchContext = { ...ctx, api, settings: { ...ctx.settings, concurrency: senders } };
    const runs: RunRecord[] = [];
    for (let run = 1; run <= ctx.settings.runs; run++) {
      const topology = await buildTopology(pace, { name: `pace${run}`, consumers, endpointsPerConsumer: 1, group: () => 'pace' });
      const { record } = await measureDeliveries(pace, topology.targets, { warmup, count });
      await removeEndpoints(pace, topology.endpoints);
      const accepted = record.intake?.perSecond ?? 0;
      if (accepted > 0) record.extra['deliveredPercent'] = round((100 * record.perSecond) / accepted, 1);
      record.extra['cpus'] = availableParallelism();
      ctx.log(
        `pace run ${run}: ${senders} senders, accepted ${accepted}/s, delivered ${record.perSecond}/s ` +
          `(${record.extra['deliveredPercent']} %), accept→receive p99 ${record.latencyMs?.p99} ms, Wirehook at ${record.cpu.wirehook} % of a core`,
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
