import type { BenchContext } from '../context.ts';
import type { RunRecord, ScenarioResult } from '../report/records.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiProbe } from '../load/api-probe.ts';
import { ControlServer } from '../load/control-server.ts';
import { nowMs } from '../load/send-messages.ts';
import { createTenants } from '../setup/tenants.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { median } from '../report/stats.ts';
import { groupRate, measureDeliveries, type MeasuredPhase } from './delivery-run.ts';

/** The half of the e2e endpoints whose rate the failure storm compares against. */
export const E2E_HALF = 'e2e.a';

/**
 * End to end: messages at the bench's concurrency, one endpoint each, spread over
 * `consumers` consumers; deliveries per second from the first send to the last
 * signature-valid receipt, and accept→receive latency. Also the rate of the even half of
 * the endpoints (`halfPerSecond`), the failure storm's reference. Then one paced run at
 * half the median rate: accept→receive latency when Wirehook is not saturated (in a closed
 * loop, latency mostly measures the queue that saturation builds).
 */
export async function runE2e(ctx: BenchContext): Promise<ScenarioResult> {
  const runs = await e2eRuns(ctx, 'e2e');
  const rate = median(runs.map((r) => r.perSecond)) ?? 0;
  const perSecond = Math.max(1, Math.round(rate * PACED_SHARE));
  const { record: paced } = await e2eRun(ctx, 'e2epaced', ctx.settings.e2e.pacedCount, perSecond);
  paced.extra['offeredPerSecond'] = perSecond;
  ctx.log(`e2e paced at ${perSecond}/s: p50 ${paced.latencyMs?.p50} ms, p99 ${paced.latencyMs?.p99} ms`);
  return { name: 'e2e', deliveriesPerMessage: 1, description: 'accept → signature-valid receipt, 1 endpoint per message', runs, paced };
}

/**
 * The closed-loop e2e runs (`settings.runs` of them), each on endpoints of its own. Beside
 * them an org of its own probes the API at an idle rate (`ApiProbe`): its p99 with Wirehook
 * idle first (`probeIdleP99`), then during each run (`probeP99`, from the first send to the
 * last receipt); and a bare server in a process of its own (`ControlServer`) is probed
 * alike in the same windows (`controlProbeIdleP99`, `controlProbeP99`): what the machine's
 * scheduling alone does to a caller's p99 at that load.
 */
export async function e2eRuns(ctx: BenchContext, label: string): Promise<RunRecord[]> {
  const [prober] = await createTenants(ctx.wirehook, 1, `${label} probe`);
  const control = await ControlServer.start();
  const probe = new ApiProbe(ctx.wirehook.apiUrl, prober!.key);
  const controlProbe = new ApiProbe(control.url, 'control');
  try {
    // The first probe opens the connection: not an idle figure.
    await Promise.all([probe.windowOf(0), controlProbe.windowOf(0)]);
    const idleFrom = nowMs();
    await sleep(ctx.settings.e2e.probeIdleMs);
    const [idle, controlIdle] = await Promise.all([probe.windowOf(idleFrom), controlProbe.windowOf(idleFrom)]);
    const runs: RunRecord[] = [];
    for (let run = 1; run <= ctx.settings.runs; run++) {
      const { record, startedAt } = await e2eRun(ctx, `${label}${run}`, ctx.settings.e2e.count);
      const until = startedAt + record.seconds * 1000;
      const [busy, controlBusy] = await Promise.all([probe.windowOf(startedAt, until), controlProbe.windowOf(startedAt, until)]);
      record.extra['probeIdleP99'] = idle.p99 ?? Number.NaN;
      record.extra['probeP99'] = busy.p99 ?? Number.NaN;
      record.extra['probeFailed'] = (run === 1 ? idle.failed + controlIdle.failed : 0) + busy.failed + controlBusy.failed;
      record.extra['controlProbeIdleP99'] = controlIdle.p99 ?? Number.NaN;
      record.extra['controlProbeP99'] = controlBusy.p99 ?? Number.NaN;
      ctx.log(
        `${label} run ${run}: ${record.perSecond}/s, p50 ${record.latencyMs?.p50} ms, p99 ${record.latencyMs?.p99} ms; ` +
          `API probe p99 ${busy.p99} ms (${busy.count} probes) against ${idle.p99} ms idle (${idle.count}); ` +
          `the control's ${controlBusy.p99} ms against ${controlIdle.p99} ms idle`,
      );
      runs.push(record);
    }
    return runs;
  } finally {
    await Promise.all([probe.stop(), controlProbe.stop()]);
    await control.stop();
  }
}

/** Share of the measured e2e rate the paced run offers. */
export const PACED_SHARE = 0.5;

async function e2eRun(ctx: BenchContext, name: string, count: number, perSecond?: number): Promise<MeasuredPhase> {
  const topology = await buildTopology(ctx, {
    name,
    consumers: ctx.settings.e2e.consumers,
    endpointsPerConsumer: 1,
    group: (c) => (c % 2 === 0 ? E2E_HALF : 'e2e.b'),
  });
  const phase = await measureDeliveries(ctx, topology.targets, { warmup: ctx.settings.e2e.warmup, count, perSecond });
  await removeEndpoints(ctx, topology.endpoints);
  phase.record.extra['halfPerSecond'] = groupRate(phase.stats.groups[E2E_HALF], phase.startedAt);
  return phase;
}
