// `pnpm bench` — Wirehook's benchmarks on this machine (docs/benchmarks.md).
//   node bench/main.ts [--smoke] [--runs N] [--only e2e,pace,floor,threaded-floor,cluster-floor,…,ordered,capacity,history,idempotency]
//                      [--orgs N] [--backlog DELIVERIES]
//                      [--senders N]                     (requests in flight from the harness; 64 unless given)
//                      [--out DIR] [--launcher embedded|cluster] [--profile DIR] [--alloc DIR] [--node-args "--trace-gc …"] [--keep]
//                      [--only scale [--deliveries N]]   (bench/scale.ts: the cost of calls on a store of N deliveries)
//                      [--only retention]                (bench/retention.ts: retention's rate against intake, another org's p99)
//                      [--only transform]                (bench/transform.ts: an endpoint transformation's cost against JSON in Node)
//                      [--only store]                    (bench/store-writes.ts: the SQLite store's CPU a delivery against a bare pipeline's writes)
//                      [--only transformed]              (scenarios/transformed.ts: a transformation's cost per delivery, e2e, against none)
//                      [--only ab --ab-env K=V,… --ab-root DIR --ab-scenario e2e|fanout] (scenarios/ab.ts: e2e, or fan-out, alternated
//                                                        against a second Wirehook, its env or checkout)
// Starts a receiver process and Wirehook (a fresh DATA_DIR), runs the scenarios, prints the
// table on stdout and writes the JSON report to bench/results/ (smoke: the temp dir).
// Exits 1 when a run's counts do not add up; a missed target is reported, not an error.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BenchContext } from './context.ts';
import { WirehookApi } from './http/wirehook-api.ts';
import { readDispatchers } from '@wirehook/cluster';
import { clusterLauncher } from './launchers/cluster-launcher.ts';
import { embeddedLauncher, LAUNCHER_ENV } from './launchers/embedded-launcher.ts';
import type { LaunchOptions, Launcher, RunningWirehook } from './launchers/launcher.ts';
import { BenchReceiver } from './receiver/receiver-client.ts';
import { DEFAULT_SCENARIOS, SCENARIO_NAMES, type ScenarioName, type ScenarioResult } from './report/records.ts';
import { rssBytes } from './report/proc-stats.ts';
import { buildReport, machineInfo, writeReport } from './report/report.ts';
import { renderReport } from './report/table.ts';
import { startRunQueue } from './report/run-queue.ts';
import { AB_SCENARIOS, type AbScenario, runAb } from './scenarios/ab.ts';
import { runBacklog } from './scenarios/backlog.ts';
import { runCapacity } from './scenarios/capacity.ts';
import { runCluster } from './scenarios/cluster.ts';
import { runBaseline } from './scenarios/baseline.ts';
import { runE2e } from './scenarios/e2e.ts';
import { runFanout } from './scenarios/fanout.ts';
import { runClusterFloor, runFloor, runThreadedFloor } from './scenarios/floor.ts';
import { runHistory } from './scenarios/history.ts';
import { runIdempotency } from './scenarios/idempotency.ts';
import { runIntake } from './scenarios/intake.ts';
import { runNoisy } from './scenarios/noisy.ts';
import { runOrdered } from './scenarios/ordered.ts';
import { runPace } from './scenarios/pace.ts';
import { runStorm } from './scenarios/storm.ts';
import { runTransformed } from './scenarios/transformed.ts';
import { FANOUT_ENDPOINTS, settingsFor } from './settings.ts';
import { payloadJson } from './setup/payload.ts';
import { createTenants } from './setup/tenants.ts';

const LAUNCHERS: Record<string, Launcher> = { embedded: embeddedLauncher, cluster: clusterLauncher };
const SCENARIOS: Record<Exclude<ScenarioName, 'idempotency' | 'ab'>, (ctx: BenchContext) => Promise<ScenarioResult>> = {
  baseline: runBaseline,
  intake: runIntake,
  e2e: runE2e,
  pace: runPace,
  floor: runFloor,
  'threaded-floor': runThreadedFloor,
  'cluster-floor': runClusterFloor,
  fanout: runFanout,
  storm: runStorm,
  noisy: runNoisy,
  backlog: runBacklog,
  ordered: runOrdered,
  capacity: runCapacity,
  history: runHistory,
  transformed: runTransformed,
  cluster: runCluster,
};
const RESULTS_DIR = fileURLToPath(new URL('./results', import.meta.url));

const { values: args } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    runs: { type: 'string' },
    only: { type: 'string' },
    orgs: { type: 'string' },
    backlog: { type: 'string' },
    out: { type: 'string' },
    launcher: { type: 'string', default: 'embedded' },
    profile: { type: 'string' },
    alloc: { type: 'string' },
    'node-args': { type: 'string' },
    keep: { type: 'boolean', default: false },
    deliveries: { type: 'string' },
    senders: { type: 'string' },
    'ab-env': { type: 'string' },
    'ab-root': { type: 'string' },
    'ab-scenario': { type: 'string' },
  },
});

// Cluster mode's dispatchers by the launcher's own rule, checked before anything runs (the cluster
// scenario comes near the end of a full run) and recorded in the report's settings.
const dispatchers = readDispatchers(process.env);
if (dispatchers.problem !== undefined) fail(`${dispatchers.problem} (the cluster launcher's rule, as for ./dev start --cluster)`);
const settings = settingsFor(args.smoke ? 'smoke' : 'full', dispatchers.dispatchers);
if (args.runs) settings.runs = positiveInt(args.runs, '--runs');
if (args.orgs) settings.orgs = positiveInt(args.orgs, '--orgs');
if (args.senders) settings.concurrency = positiveInt(args.senders, '--senders');
if (args.backlog) settings.backlog.messages = Math.ceil(positiveInt(args.backlog, '--backlog') / FANOUT_ENDPOINTS);
const only = args.only ? args.only.split(',').map((s) => s.trim()) : [...DEFAULT_SCENARIOS];
// The delivery-thread floor is a measurement, not a scenario: its figures would stand as the threaded floor's in a full report.
if (process.env['FLOOR_DELIVERY_THREAD'] === '1' && only.some((name) => name !== 'threaded-floor')) {
  fail('FLOOR_DELIVERY_THREAD=1 measures the delivery-thread floor alone: run it with --only threaded-floor');
}
// The benches that run on their own, each with its results directory and a log line sink: when
// asked for, run; when nothing else was asked for, exit with its outcome.
const standaloneLog = (line: string) => process.stderr.write(`bench ${line}\n`);
const outDir = resolve(args.out ?? (args.smoke ? tmpdir() : RESULTS_DIR));
// Made now: a directory that is not there yet would otherwise fail a run only once it had been measured.
mkdirSync(outDir, { recursive: true });
async function runStandalone(name: string, run: () => Promise<boolean>): Promise<void> {
  if (!only.includes(name)) return;
  const ok = await run();
  only.splice(only.indexOf(name), 1);
  if (only.length === 0) process.exit(ok ? 0 : 1);
}
// Scale (issue 26): a store of --deliveries (default 10^6) and an API probe (bench/scale.ts).
await runStandalone('scale', async () =>
  (await import('./scale.ts')).runScale(positiveInt(args.deliveries ?? '1000000', '--deliveries'), outDir, standaloneLog),
);
// Retention (issue 39): N old messages removed beside the intake rate and an API probe (bench/retention.ts).
await runStandalone('retention', async () =>
  (await import('./retention.ts')).runRetention(args.smoke ? 20_000 : 200_000, args.smoke ? 2_000 : 16_000, outDir, standaloneLog),
);
// Transformations (issue 45), in this process: a run's cost against a baseline of the same run (bench/transform.ts).
await runStandalone('transform', async () =>
  (await import('./transform.ts')).runTransformBench(args.smoke ? { runs: 1, count: 200 } : { runs: 3, count: 5_000 }, outDir, standaloneLog),
);
// The store's CPU per delivery (issue 46), in this process: create, claim and complete against a
// bare pipeline's writes (bench/store-writes.ts).
await runStandalone('store', async () =>
  (await import('./store-writes.ts')).runStoreBench(args.smoke ? { runs: 1, deliveries: 2_000 } : { runs: 3, deliveries: 20_000 }, outDir, standaloneLog),
);
for (const name of only) if (!SCENARIO_NAMES.includes(name as ScenarioName)) fail(`--only: unknown scenario ${name}; one of ${SCENARIO_NAMES.join(', ')}`);
const launcher = LAUNCHERS[args.launcher] ?? fail(`--launcher must be one of ${Object.keys(LAUNCHERS).join(', ')}`);
const ab = abVariant(args['ab-env'], args['ab-root']);
if (only.includes('ab')) {
  if (ab === undefined) fail('--only ab: say what B differs by, --ab-env K=V,… and/or --ab-root DIR (another checkout)');
  // A must be as fresh as B: no scenario before it in the same process.
  if (only.length > 1) fail(`--only ab runs alone (asked for: ${only.join(', ')})`);
  // Each would apply to A alone.
  if (args.profile || args.alloc) fail('--only ab: no --profile or --alloc (they would apply to A only)');
} else if (ab !== undefined || args['ab-scenario'] !== undefined) fail('--ab-env, --ab-root and --ab-scenario go with --only ab');
const abScenario = (args['ab-scenario'] ?? 'e2e') as AbScenario;
if (!AB_SCENARIOS.includes(abScenario)) fail(`--ab-scenario: ${abScenario} is none of ${AB_SCENARIOS.join(', ')}`);
if (ab?.root !== undefined && launcher !== embeddedLauncher) fail('--ab-root: embedded mode only');
const profileDir = args.profile ? resolve(args.profile) : undefined;
const allocDir = args.alloc ? resolve(args.alloc) : undefined;

// Ctrl-C or a kill: exit, so the launcher's exit hook takes Wirehook down too.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const started = Date.now();
const loadAtStart = loadavg()[0]!;
const log = (line: string) => process.stderr.write(`bench [${((Date.now() - started) / 1000).toFixed(1)} s] ${line}\n`);
const workDir = mkdtempSync(join(tmpdir(), 'wirehook-bench-'));
// One directory per process: a process writes one profile per thread (main, store worker).
const profileArgs = (name: string) => (profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`] : []);
// Wirehook's main thread only (embedded mode: the API and the dispatcher), allocations by function.
const allocArgs = allocDir ? [`--import=${fileURLToPath(new URL('./alloc/sampler.ts', import.meta.url))}`] : [];
if (allocDir) mkdirSync(allocDir, { recursive: true });

const nodeArgs = args['node-args']?.split(' ').filter(Boolean) ?? [];
let receiver: BenchReceiver | undefined;
let wirehook: RunningWirehook | undefined;
let api: WirehookApi | undefined;
let exitCode = 0;
try {
  receiver = await BenchReceiver.start({ execArgv: profileArgs('receiver') });
  log(`receiver (pid ${receiver.pid}) on ${receiver.origin} (${receiver.ip})`);
  const launchOptions: LaunchOptions = {
    dataDir: join(workDir, 'data'),
    logFile: join(workDir, 'wirehook.log'),
    env: { ...receiver.wirehookEnv, NODE_EXTRA_CA_CERTS: receiver.ca.caFile, ...(allocDir ? { WIREHOOK_ALLOC_DIR: allocDir } : {}) },
    execArgv: [...profileArgs('wirehook'), ...allocArgs, ...nodeArgs],
    dispatchers: settings.dispatchers,
  };
  wirehook = await launcher.launch(launchOptions);
  // Every launch goes through here or relaunch: what the header says of cluster mode follows them.
  let clusterModeRan = launcher === clusterLauncher;
  log(`wirehook ${launcher.name} (pids ${wirehook.pids.join(', ')}) on ${wirehook.apiUrl}; data in ${workDir}`);
  const tenants = await createTenants(wirehook, settings.orgs);
  log(`${tenants.length} Business orgs with a live key each`);
  api = new WirehookApi(wirehook.apiUrl, settings.concurrency + 8);
  let ctx: BenchContext = { settings, wirehook, receiver, api, tenants, nodeArgs, payload: payloadJson(settings.payloadBytes), log };
  /** Stops the running Wirehook and launches `using` with `options` in its place. */
  const relaunch = async (using: Launcher, options: LaunchOptions) => {
    await api!.close();
    await wirehook!.stop();
    wirehook = await using.launch(options);
    if (using === clusterLauncher) clusterModeRan = true;
    api = new WirehookApi(wirehook.apiUrl, settings.concurrency + 8);
    ctx = { ...ctx, wirehook, api };
    return wirehook;
  };

  // The run queue's sampler thread takes a moment to start: before the first span, not in it.
  startRunQueue();
  const results: ScenarioResult[] = [];
  for (const name of SCENARIO_NAMES) {
    if (!only.includes(name)) continue;
    if (name === 'cluster') {
      if (launcher === clusterLauncher) {
        log('cluster: skipped, the whole bench already runs in cluster mode');
        continue;
      }
      // Embedded mode stops first: the two never share the cores. Fresh data, own orgs.
      const cluster = await relaunch(clusterLauncher, {
        ...launchOptions,
        dataDir: join(workDir, 'cluster-data'),
        logFile: join(workDir, 'cluster.log'),
        execArgv: [...profileArgs('cluster'), ...launchOptions.execArgv.filter((a) => !a.startsWith('--cpu-prof'))],
      });
      log(`wirehook cluster (pids ${cluster.pids.join(', ')}) on ${cluster.apiUrl}`);
      ctx = { ...ctx, tenants: await createTenants(cluster, settings.orgs) };
      results.push(await SCENARIOS[name](ctx));
      continue;
    }
    if (name === 'idempotency') {
      // Cluster mode twice, the gateway's Redis front off and then on: fresh data and orgs
      // each time, and never both running at once.
      results.push(
        await runIdempotency(ctx, async (front) => {
          const cluster = await relaunch(clusterLauncher, {
            ...launchOptions,
            env: { ...launchOptions.env, IDEMPOTENCY_FRONT: front },
            dataDir: join(workDir, `idempotency-${front}-data`),
            logFile: join(workDir, `idempotency-${front}.log`),
            execArgv: [...profileArgs(`idempotency-${front}`), ...launchOptions.execArgv.filter((a) => !a.startsWith('--cpu-prof'))],
          });
          log(`wirehook cluster, IDEMPOTENCY_FRONT=${front} (pids ${cluster.pids.join(', ')}) on ${cluster.apiUrl}`);
          ctx = { ...ctx, tenants: await createTenants(cluster, settings.orgs) };
          return ctx;
        }),
      );
      continue;
    }
    if (name === 'ab') {
      // B beside A, both up; only the one measured gets load. Its own data, orgs and API client.
      const variant = await launcher.launch({
        ...launchOptions,
        ...(ab!.root === undefined ? {} : { root: ab!.root }),
        env: { ...launchOptions.env, ...ab!.env },
        dataDir: join(workDir, 'ab-data'),
        logFile: join(workDir, 'ab.log'),
        execArgv: launchOptions.execArgv.filter((a) => !a.startsWith('--cpu-prof')),
      });
      try {
        const variantApi = new WirehookApi(variant.apiUrl, settings.concurrency + 8);
        try {
          log(`ab: B (${ab!.label}, pids ${variant.pids.join(', ')}) on ${variant.apiUrl}`);
          const b: BenchContext = { ...ctx, wirehook: variant, api: variantApi, tenants: await createTenants(variant, settings.orgs) };
          results.push(await runAb(ctx, b, ab!.label, abScenario));
        } finally {
          await variantApi.close();
        }
      } finally {
        await variant.stop();
      }
      continue;
    }
    if (name === 'backlog' && results.length > 0) {
      // The backlog's peak RSS is its own, not the heap the scenarios before it grew: a fresh
      // process on the same data (orgs and keys stay). What the process had reached is kept.
      const rssBefore = wirehook.pids.reduce((sum, pid) => sum + rssBytes(pid), 0);
      const restarted = await relaunch(launcher, launchOptions);
      log(`restarted wirehook (pids ${restarted.pids.join(', ')}) after ${Math.round(rssBefore / 2 ** 20)} MB RSS`);
      const result = await SCENARIOS[name](ctx);
      result.runs[0]!.extra['rssBeforeRestartMb'] = Math.round(rssBefore / 2 ** 20);
      results.push(result);
      continue;
    }
    log(`${name}…`);
    results.push(await SCENARIOS[name](ctx));
  }
  const report = buildReport({
    mode: settings.mode,
    launcher: launcher.name,
    startedAt: new Date(started).toISOString(),
    durationSeconds: Math.round((Date.now() - started) / 1000),
    machine: machineInfo(loadAtStart, args['node-args']),
    settings,
    clusterModeRan,
    results,
  });
  process.stdout.write(renderReport(report));
  log(`report: ${writeReport(report, outDir)}`);
  if (report.checks.some((c) => !c.ok)) exitCode = 1;
} catch (err) {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
  exitCode = 1;
} finally {
  await api?.close();
  await wirehook?.stop();
  await receiver?.close();
  if (args.keep || exitCode !== 0) log(`kept ${workDir} (wirehook.log, data/)`);
  else rmSync(workDir, { recursive: true, force: true });
  if (profileDir) {
    log(`CPU profiles in ${profileDir}/, a folder a launch (cluster mode's named by service); summarise one with: node bench/profile-summary.ts FILE`);
  }
  if (allocDir) log(`heap sampling profiles in ${allocDir}/; summarise one with: node bench/alloc/summary.ts FILE [deliveries]`);
}
process.exitCode = exitCode;

function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) fail(`${flag} must be a positive integer`);
  return n;
}

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

/**
 * What `--ab-env NAME=VALUE,…` and `--ab-root DIR` make B differ by (scenarios/ab.ts); undefined
 * when neither is given. A value cannot hold a comma. DIR is relative to where the bench runs
 * (the repository's root under `./dev`).
 */
function abVariant(envList: string | undefined, rootDir: string | undefined): { env: Record<string, string>; root?: string; label: string } | undefined {
  if (envList === undefined && rootDir === undefined) return undefined;
  const env: Record<string, string> = {};
  for (const pair of envList?.split(',') ?? []) {
    const at = pair.indexOf('=');
    if (at < 1) fail(`--ab-env: "${pair}" is not NAME=VALUE (NAME=VALUE pairs, comma-separated)`);
    const name = pair.slice(0, at);
    // B's are its own, as A's are: the embedded launcher sets them.
    if ((LAUNCHER_ENV as readonly string[]).includes(name)) fail(`--ab-env: ${name} is the launcher's to set`);
    env[name] = pair.slice(at + 1);
  }
  const root = rootDir === undefined ? undefined : resolve(rootDir);
  if (root !== undefined) {
    for (const needed of ['services/embedded/src/main.ts', 'packages/admin/src/main.ts', 'node_modules']) {
      if (!existsSync(join(root, needed))) fail(`--ab-root: ${root} is no Wirehook checkout ready to run (no ${needed}; pnpm install there first)`);
    }
    // Its services must load its own packages: node_modules linked to another checkout's (a
    // shortcut for a worktree) would run that checkout's store, egress, … under B's name.
    const own = `${realpathSync(root)}${sep}`;
    for (const link of ['services/embedded/node_modules/@wirehook/store', 'node_modules/@wirehook/core']) {
      const target = existsSync(join(root, link)) ? realpathSync(join(root, link)) : undefined;
      if (target === undefined || !target.startsWith(own)) {
        fail(`--ab-root: ${link} leads ${target === undefined ? 'nowhere' : `to ${target}`}, not into ${root}: run pnpm install there`);
      }
    }
  }
  const label = [root && `checkout ${root}`, envList && `env ${envList}`].filter(Boolean).join(', ');
  return { env, ...(root === undefined ? {} : { root }), label };
}
