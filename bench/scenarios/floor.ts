import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchContext } from '../context.ts';
import type { FloorOptions } from '../floor/floor-process.ts';
import { WirehookApi } from '../http/wirehook-api.ts';
import { ForkedServer } from '../load/forked-server.ts';
import type { RunRecord, ScenarioResult } from '../report/records.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { measureDeliveries } from './delivery-run.ts';

const FLOOR_MAIN = new URL('../floor/floor-process.ts', import.meta.url);
/** Sends in flight at most: Wirehook's `DISPATCH_CONCURRENCY` default. */
const FLOOR_IN_FLIGHT = 512;
/**
 * The floor delivers 2–2.5 × e2e's rate: twice e2e's count makes its measured span about as
 * long as e2e's, so a major GC of its heap lands in a run's span about as often.
 */
const COUNT_PER_E2E_COUNT = 2;

/**
 * The pipeline floor (issue 46): e2e's load — the same senders, consumers, payload and
 * receiver — against a bare durable webhook pipeline (bench/floor/floor-process.ts: accept,
 * store with an fsync before the 202, sign, POST, record; one thread). Its CPU a delivery,
 * measured in the same run, is what e2e's is set against: the part of Wirehook's cost that is
 * Wirehook's, whatever the machine's speed. Each run records whether the floor's store ran
 * with an fsync at each commit (`fsyncEachCommit`, 1: WAL and synchronous = FULL).
 */
export async function runFloor(ctx: BenchContext): Promise<ScenarioResult> {
  const { receiver, settings } = ctx;
  const runs: RunRecord[] = [];
  let dataDir: string | undefined;
  let floor: ForkedServer | undefined;
  let api: WirehookApi | undefined;
  try {
    dataDir = mkdtempSync(join(tmpdir(), 'wirehook-floor-'));
    const options: FloorOptions = { dataDir, resolve: { [receiver.host]: receiver.ip }, caPem: receiver.ca.caPem, inFlight: FLOOR_IN_FLIGHT };
    // The flags Wirehook's process gets: the embedded launcher's WIREHOOK_NODE_FLAGS and --node-args (NODE_OPTIONS both inherit).
    const nodeFlags = [...(process.env['WIREHOOK_NODE_FLAGS']?.split(/\s+/).filter(Boolean) ?? []), ...ctx.nodeArgs];
    floor = await ForkedServer.start(FLOOR_MAIN, [JSON.stringify(options)], 'the pipeline floor', nodeFlags);
    const health = (await (await fetch(`${floor.url}/healthz`)).json()) as { journalMode: string; synchronous: number };
    const fsyncEachCommit = health.journalMode === 'wal' && health.synchronous === 2 ? 1 : 0;
    api = new WirehookApi(floor.url, settings.concurrency + 8);
    const running = floor;
    // The scenarios' helpers measure `wirehook.pids`: here the floor's one process.
    const floorCtx: BenchContext = {
      ...ctx,
      api,
      wirehook: { apiUrl: floor.url, pids: [floor.pid], admin: () => Promise.reject(new Error('the floor has no admin CLI')), stop: () => running.stop() },
    };
    for (let run = 1; run <= settings.runs; run++) {
      const topology = await buildTopology(floorCtx, { name: `floor${run}`, consumers: settings.e2e.consumers, endpointsPerConsumer: 1, group: () => 'floor' });
      const count = settings.e2e.count * COUNT_PER_E2E_COUNT;
      const { record } = await measureDeliveries(floorCtx, topology.targets, { warmup: settings.e2e.warmup, count });
      await removeEndpoints(floorCtx, topology.endpoints);
      record.extra['fsyncEachCommit'] = fsyncEachCommit;
      ctx.log(`floor run ${run}: ${record.perSecond}/s at ${record.wirehookCpuUs} µs a delivery (${JSON.stringify(record.wirehookCpuUsByPart)})`);
      runs.push(record);
    }
  } finally {
    await api?.close();
    await floor?.stop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  }
  return {
    name: 'floor',
    deliveriesPerMessage: 1,
    description: 'a bare durable pipeline, e2e load: accept, store (fsync), sign, POST, record; one thread',
    runs,
  };
}
