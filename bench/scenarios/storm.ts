import type { BenchContext } from '../context.ts';
import type { RunRecord, ScenarioResult } from '../report/records.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { groupRate, measureDeliveries } from './delivery-run.ts';

const HEALTHY = 'storm.healthy';
const FAILING = 'storm.failing';

/**
 * Failure storm: the e2e load, with every other consumer's endpoint answering 500 (and
 * retried by the default policy). `perSecond` is the healthy half's rate, to compare with
 * the same half's rate in e2e (`halfPerSecond` there), where nothing fails.
 */
export async function runStorm(ctx: BenchContext): Promise<ScenarioResult> {
  const { settings, receiver } = ctx;
  const runs: RunRecord[] = [];
  for (let run = 1; run <= settings.runs; run++) {
    const topology = await buildTopology(ctx, {
      name: `storm${run}`,
      consumers: settings.storm.consumers,
      endpointsPerConsumer: 1,
      group: (c) => (c % 2 === 0 ? HEALTHY : FAILING),
    });
    const failing = topology.endpoints.filter((e) => e.group === FAILING);
    await receiver.setMode(
      failing.map((e) => e.route),
      'fail',
    );
    const phase = await measureDeliveries(ctx, topology.targets, {
      warmup: settings.storm.warmup,
      count: settings.storm.count,
      failing: new Set([FAILING]),
    });
    // Deleting the endpoints fails their retrying deliveries: no retry outlives the run.
    await removeEndpoints(ctx, topology.endpoints);
    const { record } = phase;
    record.perSecond = groupRate(phase.stats.groups[HEALTHY], phase.startedAt);
    record.extra['healthyPerSecond'] = record.perSecond;
    ctx.log(`failure storm run ${run}: healthy ${record.perSecond}/s, ${record.failedAnswers} answered 500`);
    runs.push(record);
  }
  return { name: 'storm', deliveriesPerMessage: 1, description: 'as e2e, half the endpoints answer 500 (retried)', runs };
}
