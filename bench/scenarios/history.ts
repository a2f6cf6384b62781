import type { BenchContext } from '../context.ts';
import { HistoryReaders, type ReadsDone } from '../load/history-readers.ts';
import type { RunRecord, ScenarioResult } from '../report/records.ts';
import { round } from '../report/stats.ts';
import { makeAttemptHistory, HISTORY_ATTEMPTS } from '../setup/attempt-history.ts';
import { createTenants } from '../setup/tenants.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { measureDeliveries } from './delivery-run.ts';

/** Callers reading the history at once: the reproduction. */
export const HISTORY_READERS = 6;

/**
 * Issue 40 H2 as a benchmark: org A makes the largest delivery history the API allows (100
 * attempts, by manual retries), and org B's `POST /v1/messages` is timed — one caller, one
 * send at a time, each delivered to a healthy endpoint — first with nobody reading (the
 * baseline), then while six callers read A's delivery (GET /v1/deliveries/{id}, its attempts
 * 100 at a time from the newest and from the delivery's cursor, and the message) in a loop.
 * Each run reports B's p50/p99 in both phases and their ratios within the run.
 */
export async function runHistory(ctx: BenchContext): Promise<ScenarioResult> {
  const { settings } = ctx;
  const [a, b] = await createTenants(ctx.wirehook, 2, 'history');
  const history = await makeAttemptHistory(ctx, a!, 'historya');
  ctx.log(`history: delivery ${history.deliveryId} of org A has ${HISTORY_ATTEMPTS} attempts; the next manual retry was refused 409`);
  const base = `/v1/deliveries/${history.deliveryId}`;
  const paths = [
    base,
    `${base}/attempts?limit=100`,
    `${base}/attempts?limit=100&cursor=${encodeURIComponent(history.olderCursor)}`,
    `/v1/messages/${history.messageId}`,
  ];
  // Org B sends as one caller would: one request at a time (latency, not throughput).
  const oneCaller: BenchContext = { ...ctx, tenants: [b!], settings: { ...settings, concurrency: 1 } };
  const { warmup, count } = settings.history;
  const runs: RunRecord[] = [];
  for (let run = 1; run <= settings.runs; run++) {
    const topology = await buildTopology(oneCaller, { name: `historyb${run}`, consumers: 1, endpointsPerConsumer: 1, group: () => 'history.b' });
    const quiet = await measureDeliveries(oneCaller, topology.targets, { warmup, count });
    const readers = new HistoryReaders(ctx.wirehook.apiUrl, a!.key, paths, HISTORY_READERS);
    let reads: ReadsDone;
    let loaded: Awaited<ReturnType<typeof measureDeliveries>>;
    try {
      await readers.started();
      loaded = await measureDeliveries(oneCaller, topology.targets, { warmup: 0, count });
    } finally {
      reads = await readers.stop();
    }
    await removeEndpoints(ctx, topology.endpoints);

    const record = loaded.record;
    const quietLatency = quiet.record.intake?.latencyMs ?? null;
    const latency = record.intake?.latencyMs ?? null;
    const put = (name: string, value: number | null | undefined) => {
      if (typeof value === 'number') record.extra[name] = value;
    };
    put('quietP50', quietLatency?.p50);
    put('quietP99', quietLatency?.p99);
    put('sendP50', latency?.p50);
    put('sendP99', latency?.p99);
    // Ratios within the run: the medians of these, not ratios of medians.
    if (quietLatency && latency) {
      put('p50VsQuiet', round(latency.p50 / quietLatency.p50, 2));
      put('p99VsQuiet', round(latency.p99 / quietLatency.p99, 2));
    }
    put('reads', reads.reads);
    put('readsPerSecond', round(reads.reads / Math.max(0.001, reads.seconds)));
    put('readP99', reads.latencyMs && round(reads.latencyMs.p99));
    put(
      'readFailed',
      Object.values(reads.failed).reduce((x, y) => x + y, 0),
    );
    ctx.log(
      `history run ${run}: org B's send p50/p99 ${quietLatency?.p50}/${quietLatency?.p99} ms alone, ` +
        `${latency?.p50}/${latency?.p99} ms beside ${HISTORY_READERS} readers (${record.extra['readsPerSecond']} reads/s, p99 ${record.extra['readP99']} ms, ` +
        `${record.extra['readFailed']} not 200)`,
    );
    runs.push(record);
  }
  return {
    name: 'history',
    deliveriesPerMessage: 1,
    description: `another org's sends, one at a time (${count}), alone and beside ${HISTORY_READERS} readers of a ${HISTORY_ATTEMPTS}-attempt delivery`,
    runs,
  };
}
