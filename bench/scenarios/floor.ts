import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { startNatsServer } from '@wirehook/testkit';
import type { BenchContext } from '../context.ts';
import { CLUSTER_FLOOR_FILE, type ClusterFloorOptions, type ClusterFloorRole } from '../floor/cluster-floor-options.ts';
import type { FloorProcessOptions, FloorReceiver } from '../floor/floor-parts.ts';
import { descendants } from '../launchers/processes.ts';
import { WirehookApi } from '../http/wirehook-api.ts';
import { ForkedServer } from '../load/forked-server.ts';
import type { RunRecord, ScenarioName, ScenarioResult } from '../report/records.ts';
import { CLUSTER_FLOOR_SCHEMA } from '../setup/bare-schema.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { measureDeliveries } from './delivery-run.ts';

const FLOOR_MAIN = new URL('../floor/floor-process.ts', import.meta.url);
const THREADED_FLOOR_MAIN = new URL('../floor/threaded-floor-process.ts', import.meta.url);
const CLUSTER_FLOOR_MAIN = new URL('../floor/cluster-floor-process.ts', import.meta.url);
/** Sends in flight at most: Wirehook's `DISPATCH_CONCURRENCY` default. */
const FLOOR_IN_FLIGHT = 512;
/**
 * The floors deliver 2–2.5 × the rate of the mode they are set against: twice e2e's count makes
 * their measured spans about as long as e2e's and cluster mode's, so a major GC of a heap lands in
 * a run's span about as often.
 */
const COUNT_PER_E2E_COUNT = 2;

/**
 * The pipeline floor (issue 46): e2e's load — the same senders, consumers, payload and
 * receiver — against a bare durable webhook pipeline (bench/floor/floor-process.ts: accept,
 * store with an fsync before the 202, sign, POST, record; one thread, its fsyncs on libuv's
 * pool). Its CPU a delivery, measured in the same run, is what e2e's is set against: the part
 * of Wirehook's cost that is Wirehook's, whatever the machine's speed.
 */
export function runFloor(ctx: BenchContext): Promise<ScenarioResult> {
  const description = 'a bare durable pipeline, e2e load: accept, store (fsync), sign, POST, record; one thread and its fsyncs';
  return floorScenario(ctx, 'floor', description, oneProcess(ctx, FLOOR_MAIN, 'the pipeline floor'));
}

/**
 * The threaded floor (issue 46): the pipeline floor's steps over the threads embedded mode runs on
 * (bench/floor/threaded-floor-process.ts: accept and sign on the main thread, SQLite and its
 * group commit on a `store-writer` thread, the POSTs on an `egress` thread, each crossing one
 * turn's calls), under e2e's load. Against the pipeline floor, what those threads cost; against
 * the cluster floor's rate, what two cores allow each mode's architecture.
 */
export function runThreadedFloor(ctx: BenchContext): Promise<ScenarioResult> {
  const description = "the floor's pipeline on embedded mode's threads: accept and sign, a store thread (fsync), an egress thread; e2e load";
  return floorScenario(ctx, 'threaded-floor', description, oneProcess(ctx, THREADED_FLOOR_MAIN, 'the threaded floor'));
}

/**
 * The cluster floor (issue 46): the pipeline floor's steps over the processes and hops cluster
 * mode's architecture fixes (bench/floor/cluster-floor-process.ts: gateway → gRPC → intake →
 * JetStream → dispatcher, one SQLite file shared; nats-server counted, as cluster mode's is),
 * under e2e's load. Its CPU a delivery, measured in the same run, is what cluster mode's is set
 * against: the part of cluster mode's cost that the hops themselves cost.
 */
export function runClusterFloor(ctx: BenchContext): Promise<ScenarioResult> {
  const description = "the floor's pipeline over gateway → gRPC → intake → JetStream → dispatcher, one SQLite file; e2e load";
  return floorScenario(ctx, 'cluster-floor', description, async (dataDir, nodeFlags) => {
    const before = new Set(descendants(process.pid));
    const nats = await startNatsServer();
    const started: ForkedServer[] = [];
    const stopAll = async () => {
      await Promise.all(started.map((s) => s.stop()));
      await nats.stop();
    };
    try {
      const store = new DatabaseSync(join(dataDir, CLUSTER_FLOOR_FILE));
      store.exec(CLUSTER_FLOOR_SCHEMA);
      store.close();
      const options: ClusterFloorOptions = { dataDir, ...receiverOf(ctx), inFlight: FLOOR_IN_FLIGHT, natsUrl: nats.url };
      const start = async (role: ClusterFloorRole, extra: Partial<ClusterFloorOptions> = {}) => {
        const server = await ForkedServer.start(CLUSTER_FLOOR_MAIN, [role, JSON.stringify({ ...options, ...extra })], `the cluster floor's ${role}`, nodeFlags);
        started.push(server);
        return server;
      };
      // The dispatcher makes the stream intake publishes to; the gateway calls intake.
      await start('dispatcher');
      const intake = await start('intake');
      const gateway = await start('gateway', { intakeAddress: new URL(intake.url).host });
      const pids = descendants(process.pid).filter((pid) => !before.has(pid));
      return {
        url: gateway.url,
        pids,
        running: () => started.every((s) => s.running),
        stop: stopAll,
      };
    } catch (err) {
      await stopAll();
      throw err;
    }
  });
}

/** A floor's scenario (one delivery a message): measureFloor's runs of the floor `start` starts. */
async function floorScenario(ctx: BenchContext, name: ScenarioName, description: string, start: Parameters<typeof measureFloor>[2]): Promise<ScenarioResult> {
  return { name, deliveriesPerMessage: 1, description, ...(await measureFloor(ctx, name, start)) };
}

/** A floor as measureFloor runs it: its API's URL, its processes, whether they all still run. */
interface RunningFloor {
  url: string;
  pids: number[];
  running: () => boolean;
  stop: () => Promise<void>;
}

/** How a floor of one process (`main`, named `what` in errors) is started on a data directory. */
function oneProcess(ctx: BenchContext, main: URL, what: string): (dataDir: string, nodeFlags: string[]) => Promise<RunningFloor> {
  return async (dataDir, nodeFlags) => {
    const options: FloorProcessOptions = { dataDir, ...receiverOf(ctx), inFlight: FLOOR_IN_FLIGHT };
    const floor = await ForkedServer.start(main, [JSON.stringify(options)], what, nodeFlags);
    return { url: floor.url, pids: [floor.pid], running: () => floor.running, stop: () => floor.stop() };
  };
}

/** The receiver as a floor process is given it. */
function receiverOf({ receiver }: BenchContext): FloorReceiver {
  return { resolve: { [receiver.host]: receiver.ip }, caPem: receiver.ca.caPem };
}

/**
 * e2e's load against a floor `start` starts on a fresh data directory: a warming run of e2e's
 * (`settings.e2e.warming` messages, as Wirehook's process gets), then `settings.runs` runs of
 * COUNT_PER_E2E_COUNT × e2e's count, each on consumers and endpoints of its own. Each run records
 * whether the floor's store ran in WAL with synchronous = FULL between commits
 * (`fsyncEachCommit`, 1, as its /healthz reports; its GroupCommit fsyncs the WAL before a durable
 * write is answered).
 */
async function measureFloor(
  ctx: BenchContext,
  name: string,
  start: (dataDir: string, nodeFlags: string[]) => Promise<RunningFloor>,
): Promise<{ runs: RunRecord[]; warming: RunRecord }> {
  const { settings } = ctx;
  const runs: RunRecord[] = [];
  let warming: RunRecord | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), `wirehook-${name}-`));
  let floor: RunningFloor | undefined;
  let api: WirehookApi | undefined;
  try {
    // The flags Wirehook's process gets: the embedded launcher's WIREHOOK_NODE_FLAGS and --node-args (NODE_OPTIONS both inherit).
    const nodeFlags = [...(process.env['WIREHOOK_NODE_FLAGS']?.split(/\s+/).filter(Boolean) ?? []), ...ctx.nodeArgs];
    floor = await start(dataDir, nodeFlags);
    const floorUrl = floor.url;
    const healthNow = async () =>
      (await (await fetch(`${floorUrl}/healthz`, { signal: AbortSignal.timeout(10_000) })).json()) as {
        journalMode: string;
        synchronous: number;
        deliveryThread?: boolean;
        attempts?: number;
      };
    const health = await healthNow();
    // The attempts a floor has recorded, where its /healthz counts them (the threaded floors'), from one run's end to the next.
    let attemptsBefore = health.attempts;
    const fsyncEachCommit = health.journalMode === 'wal' && health.synchronous === 2 ? 1 : 0;
    api = new WirehookApi(floor.url, settings.concurrency + 8);
    const running = floor;
    // The scenarios' helpers measure `wirehook.pids`: here the floor's processes.
    const floorCtx: BenchContext = {
      ...ctx,
      api,
      wirehook: { apiUrl: floor.url, pids: floor.pids, admin: () => Promise.reject(new Error('a floor has no admin CLI')), stop: () => running.stop() },
    };
    // Run 0 warms the process, as e2eRuns does Wirehook's.
    for (let run = 0; run <= settings.runs; run++) {
      const topology = await buildTopology(floorCtx, { name: `${name}${run}`, consumers: settings.e2e.consumers, endpointsPerConsumer: 1, group: () => name });
      const count = run === 0 ? settings.e2e.warming : settings.e2e.count * COUNT_PER_E2E_COUNT;
      const { record } = await measureDeliveries(floorCtx, topology.targets, { warmup: settings.e2e.warmup, count });
      // A floor process that ended (a write failed, a thread gone: floor-parts.ts, floor-thread.ts) fails the run, whatever its receiver counted.
      const ended = () => new Error(`${name}: a floor process ended during run ${run} (its stderr says why)`);
      if (!running.running()) throw ended();
      await removeEndpoints(floorCtx, topology.endpoints);
      // The records of the run's last sends, and the endpoints' removal, come after its count: checked again.
      if (!running.running()) throw ended();
      record.extra['fsyncEachCommit'] = fsyncEachCommit;
      // The threaded floor run as the delivery-thread floor (FLOOR_DELIVERY_THREAD=1: threaded-floor-process.ts).
      if (health.deliveryThread) record.extra['deliveryThread'] = 1;
      if (attemptsBefore !== undefined) {
        // The run's attempts as its store recorded them, its warm-up's included: waited for until they
        // cover what the receiver counted (the last sends' records come after the count), for 30 s at most.
        const expected = attemptsBefore + settings.e2e.warmup + record.delivered;
        const deadline = Date.now() + 30_000;
        let attempts = (await healthNow()).attempts ?? 0;
        while (attempts < expected && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          attempts = (await healthNow()).attempts ?? 0;
        }
        // Fewer is a floor that lost records: its run measured a pipeline that does not do its work.
        if (attempts < expected)
          throw new Error(`${name}: run ${run}'s attempts were not all recorded within 30 s (${attempts - attemptsBefore} of ${expected - attemptsBefore})`);
        // The warm-up's are in it: the report's settings.e2e.warmup.
        record.extra['attemptsRecorded'] = attempts - attemptsBefore;
        attemptsBefore = attempts;
      }
      const which = run === 0 ? 'warming' : `run ${run}`;
      ctx.log(`${name} ${which}: ${record.perSecond}/s at ${record.wirehookCpuUs} µs a delivery (${JSON.stringify(record.wirehookCpuUsByPart)})`);
      if (run === 0) warming = record;
      else runs.push(record);
    }
    // Once more after the last run: its retries and its removed endpoints' deliveries write after its count.
    if (!running.running()) throw new Error(`${name}: a floor process ended after its last run (its stderr says why)`);
  } finally {
    await api?.close();
    await floor?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return { runs, warming: warming! };
}
