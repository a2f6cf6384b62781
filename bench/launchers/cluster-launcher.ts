import { appendFileSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { clusterPortsFrom, clusterPortSpan, startCluster, type Cluster } from '@wirehook/cluster';
import { freePortRun, startNatsServer, startRedisServer } from '@wirehook/testkit';
import type { LaunchOptions, Launcher, RunningWirehook } from './launcher.ts';
import { descendants, runAdmin } from './processes.ts';

/**
 * Cluster mode: nats-server (JetStream) and redis-server on free loopback ports, and every
 * Wirehook service as its own process (services/cluster, the shape the Helm chart deploys),
 * sharing the SQLite file in DATA_DIR. Every process it starts — NATS and Redis included,
 * they are part of what cluster mode costs — is sampled for RSS and CPU.
 */
export const clusterLauncher: Launcher = {
  name: 'cluster',
  async launch(options: LaunchOptions): Promise<RunningWirehook> {
    if (options.root !== undefined) throw new Error('the cluster launcher runs this checkout only (no --ab-root)');
    const replicas = options.dispatchers;
    if (replicas === undefined) throw new Error('the cluster launcher is told its dispatchers (settings.dispatchers)');
    const before = new Set(descendants(process.pid));
    const [nats, redis] = await Promise.all([startNatsServer(), startRedisServer()]);
    // One run of free ports for everything (separately drawn ports could collide).
    const ports = clusterPortsFrom(await freePortRun(clusterPortSpan(replicas)), replicas);
    // Which service each Node process was, by pid (a restart's new pid too): its CPU profiles are named by it.
    const services = new Map<number, string>();
    let cluster: Cluster;
    try {
      cluster = await startCluster({
        env: {
          DATA_DIR: options.dataDir,
          NATS_URL: nats.url,
          REDIS_URL: redis.url,
          // The shared SQLite file, whatever MONGODB_URL the environment has.
          MONGODB_URL: '',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
          // Node flags (profiling) reach every service through NODE_OPTIONS, after ./dev's own.
          ...(options.execArgv.length > 0 ? { NODE_OPTIONS: [process.env['NODE_OPTIONS'] ?? '', ...options.execArgv].join(' ').trim() } : {}),
          ...options.env,
        },
        ports,
        dispatchers: replicas,
        onLine: (service, line) => appendFileSync(options.logFile, `[${service}] ${line}\n`),
        onSpawn: (service, pid) => services.set(pid, service),
      });
    } catch (err) {
      await Promise.all([nats.stop(), redis.stop()]);
      throw err;
    }
    const pids = descendants(process.pid).filter((pid) => !before.has(pid));
    // However the harness ends, the services do not outlive it (NATS and Redis watch for that themselves).
    const kill = () => pids.forEach((pid) => safeKill(pid));
    process.once('exit', kill);
    return {
      apiUrl: cluster.apiUrl,
      pids,
      metricsUrls: Object.fromEntries(cluster.specs.map((s) => [s.name, `http://127.0.0.1:${s.metricsPort}`])),
      admin: (args) => runAdmin(args, options.dataDir),
      async stop() {
        await cluster.stop();
        await Promise.all([nats.stop(), redis.stop()]);
        process.off('exit', kill);
        nameProfiles(options.execArgv, services);
      },
    };
  },
};

/**
 * With `--cpu-prof-dir` every service writes its profiles (one a thread) into the one folder as it
 * exits, named by pid alone (`CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile`): each gets its
 * service's name in front (`dispatcher-1.CPU.…`), so a reader can tell the dispatcher's from the gateway's.
 */
export function nameProfiles(execArgv: readonly string[], services: ReadonlyMap<number, string>): void {
  const dir = execArgv.find((arg) => arg.startsWith('--cpu-prof-dir='))?.slice('--cpu-prof-dir='.length);
  if (dir === undefined) return;
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch {
    return; // no profile was written
  }
  for (const file of files) {
    const pid = /^CPU\.\d+\.\d+\.(\d+)\.\d+\.\d+\.cpuprofile$/.exec(file)?.[1];
    const service = pid === undefined ? undefined : services.get(Number(pid));
    if (service !== undefined) renameSync(join(dir, file), join(dir, `${service}.${file}`));
  }
}

function safeKill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
