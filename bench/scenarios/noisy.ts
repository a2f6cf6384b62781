import type { BenchContext } from '../context.ts';
import { sendMessages } from '../load/send-messages.ts';
import type { RunRecord, ScenarioResult } from '../report/records.ts';
import { buildTopology, removeEndpoints, type Topology } from '../setup/topology.ts';
import { createTenants } from '../setup/tenants.ts';
import { measureDeliveries, type MeasuredPhase } from './delivery-run.ts';

const HEALTHY = 'noisy.healthy';
const STUCK = 'noisy.stuck';

/**
 * A noisy neighbour: one tenant queues `backlog` messages for an endpoint that never
 * answers (each attempt hangs for the whole attempt timeout), while `healthyTenants` other
 * tenants send the e2e load to healthy endpoints. Each run then measures the same healthy
 * load with the backlog gone (`plain…` in extra): the healthy tenants' rate and
 * accept→receive p99 against that same run's plain figures.
 */
export async function runNoisy(ctx: BenchContext): Promise<ScenarioResult> {
  const { settings } = ctx;
  const healthyTenants = await createTenants(ctx.wirehook, settings.noisy.healthyTenants);
  const healthyCtx: BenchContext = { ...ctx, tenants: healthyTenants };
  const runs: RunRecord[] = [];
  for (let run = 1; run <= settings.runs; run++) {
    // A tenant per run: one run's backlog and its clean-up are most of the spec's 20,000
    // requests a minute per environment, and Wirehook now queues it within seconds.
    const [noisyTenant] = await createTenants(ctx.wirehook, 1);
    const noisy = await buildTopology(
      { ...ctx, tenants: [noisyTenant!] },
      { name: `noisystuck${run}`, consumers: 1, endpointsPerConsumer: 1, group: () => STUCK },
    );
    const stuckRoutes = noisy.endpoints.map((e) => e.route);
    await ctx.receiver.setMode(stuckRoutes, 'hang');
    // The stuck endpoint's sends still held open end with the run, however it ends (its
    // deliveries fail with the endpoint): a Wirehook stopped after a run that threw would
    // otherwise wait out their attempt timeouts.
    runs.push(await noisyRun(ctx, healthyCtx, noisy, run).finally(() => ctx.receiver.setMode(stuckRoutes, 'fail')));
  }
  return {
    name: 'noisy',
    deliveriesPerMessage: 1,
    description:
      `e2e load of ${settings.noisy.healthyTenants} tenants beside one with ` + `${settings.noisy.backlog.toLocaleString('en')} queued for a hung endpoint`,
    runs,
  };
}

/** One run: the backlog queued for the hung endpoint, the healthy load beside it, then the same load with the backlog gone. */
async function noisyRun(ctx: BenchContext, healthyCtx: BenchContext, stuck: Topology, run: number): Promise<RunRecord> {
  const { settings } = ctx;
  const queued = await sendMessages(ctx.api, stuck.targets, 0, settings.noisy.backlog, settings.concurrency);
  const queueSeconds = (queued.finishedAt - queued.startedAt) / 1000;
  ctx.log(`noisy run ${run}: ${queued.accepted} messages queued in ${queueSeconds.toFixed(1)} s for an endpoint that never answers`);

  const loaded = await healthyRun(healthyCtx, `noisyhealthy${run}`);
  // Deleting the stuck endpoint fails its backlog: nothing of it outlives the run.
  await removeEndpoints(ctx, stuck.endpoints);
  // The same load with no backlog, after (so it is the warmer of the two: the ratio errs against Wirehook).
  const plain = await healthyRun(healthyCtx, `noisyplain${run}`);

  const { record } = loaded;
  record.extra['plainPerSecond'] = plain.record.perSecond;
  if (plain.record.latencyMs) record.extra['plainP99'] = plain.record.latencyMs.p99;
  record.extra['backlog'] = queued.accepted;
  record.extra['backlogAcceptedPerSecond'] = Math.round(queued.accepted / Math.max(0.001, queueSeconds));
  ctx.log(
    `noisy run ${run}: healthy ${record.perSecond}/s (plain ${plain.record.perSecond}/s), ` +
      `p99 ${record.latencyMs?.p99} ms (plain ${plain.record.latencyMs?.p99} ms)`,
  );
  return record;
}

/** The e2e load over the healthy tenants, on endpoints of its own, removed after. */
async function healthyRun(ctx: BenchContext, name: string): Promise<MeasuredPhase> {
  const { settings } = ctx;
  const topology = await buildTopology(ctx, { name, consumers: settings.noisy.consumers, endpointsPerConsumer: 1, group: () => HEALTHY });
  const phase = await measureDeliveries(ctx, topology.targets, { warmup: settings.noisy.warmup, count: settings.noisy.count });
  await removeEndpoints(ctx, topology.endpoints);
  return phase;
}
