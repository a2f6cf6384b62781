// Wirehook in cluster mode for tests: real nats-server (JetStream) and redis-server on free
// loopback ports, every service its own process (services/cluster), SQLite shared through
// DATA_DIR, and one clock offset file that moves the time of every process at once.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { expect } from 'vitest';
import { runAdminCommand } from '@wirehook/admin';
import { clusterPortsFrom, clusterPortSpan, startCluster, type Cluster } from '@wirehook/cluster';
import { ENVIRONMENTS, type Clock, type Environment, type PlanName, type Scope } from '@wirehook/core';
import { HELD_AFTER_STOP } from '@wirehook/platform';
import { openEmbeddedStore } from '@wirehook/store';
import { ApiClient, freePortRun, type NatsServer, startNatsServer, startRedisServer, testCa } from '@wirehook/testkit';
import type { TestTenant } from './harness.ts';
import { hostFor, TEST_ALLOW_HOSTS } from './receivers.ts';

export interface ClusterHarnessOptions {
  dispatchers?: number;
  deliveryTimeoutMs?: number;
  /** Extra environment for every service. */
  env?: Record<string, string>;
  /** Print the services' log lines (debugging). */
  verbose?: boolean;
  /** A nats-server to share with another harness (two installs on one NATS): used as given, never stopped here. */
  nats?: NatsServer;
}

/** The test's view of the shared clock: the wall clock plus the offset in the file. */
class ClockFile implements Clock {
  readonly file: string;
  #offset = 0;

  constructor(file: string) {
    this.file = file;
    writeFileSync(file, '0');
  }

  now(): number {
    return Date.now() + this.#offset;
  }

  advance(ms: number): void {
    this.#offset += ms;
    writeFileSync(this.file, String(this.#offset));
  }
}

export interface ClusterHarness {
  url: string;
  clock: ClockFile;
  cluster: Cluster;
  nats: NatsServer;
  redis: Awaited<ReturnType<typeof startRedisServer>>;
  dataDir: string;
  tenant(options?: { plan?: PlanName; env?: Environment; scopes?: Scope[] }): Promise<TestTenant>;
  key(orgId: string, options?: { env?: Environment; scopes?: Scope[] }): Promise<TestTenant>;
  admin(...argv: string[]): Promise<Record<string, any>>;
  /** Moves every process's clock and gives their sweepers time to act. */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where the services' lines go: stderr when verbose; into a file of the directory named by
 * WIREHOOK_TEST_SERVICE_LOGS when set (one file a harness, to read a failure after the run);
 * else nowhere.
 */
function serviceLines(verbose: boolean | undefined, dataDir: string): (name: string, line: string) => void {
  const dir = process.env['WIREHOOK_TEST_SERVICE_LOGS'];
  if (verbose) return (name, line) => process.stderr.write(`[${name}] ${line}\n`);
  if (!dir) return () => {};
  const file = join(dir, `${basename(dataDir)}.log`);
  appendFileSync(file, `${expect.getState().testPath ?? ''}\n`);
  return (name, line) => appendFileSync(file, `${new Date().toISOString()} [${name}] ${line}\n`);
}

/** Starts NATS, Redis and every Wirehook service for a test file. Close it in afterAll. */
export async function startClusterHarness(options: ClusterHarnessOptions = {}): Promise<ClusterHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-cluster-'));
  const [nats, redis] = await Promise.all([options.nats ?? startNatsServer(), startRedisServer()]);
  const stopServers = () => Promise.all([options.nats ? undefined : nats.stop(), redis.stop()]);
  const clock = new ClockFile(join(dataDir, 'clock-offset'));
  const dispatchers = options.dispatchers ?? 1;
  // Every test receiver name (rN.receiver.wirehook.test → 127.0.0.N), like curl --resolve.
  const resolve = Array.from({ length: 253 }, (_, i) => `${hostFor(`127.0.0.${i + 2}`)}:127.0.0.${i + 2}`).join(',');
  let cluster: Cluster;
  const logLine = serviceLines(options.verbose, dataDir);
  /** A service that something held open after its stop (runComponents then ends it, saying HELD_AFTER_STOP): a leak. */
  const heldAfterStop: string[] = [];
  try {
    cluster = await startCluster({
      env: {
        DATA_DIR: dataDir,
        NATS_URL: nats.url,
        REDIS_URL: redis.url,
        HOST: '127.0.0.1',
        DELIVERY_ALLOW_HOSTS: TEST_ALLOW_HOSTS,
        DELIVERY_RESOLVE: resolve,
        NODE_EXTRA_CA_CERTS: (await testCa()).caFile,
        DELIVERY_TIMEOUT_MS: String(options.deliveryTimeoutMs ?? 1_000),
        SWEEP_INTERVAL_MS: '25',
        WIREHOOK_TEST_CLOCK_FILE: clock.file,
        LOG_LEVEL: 'warn',
        // The harness reads the shared SQLite file: never let a MONGODB_URL of the
        // environment (the Mongo CI step) switch the services to another store.
        MONGODB_URL: '',
        ...options.env,
      },
      // One run of free ports for everything (separately drawn ports could collide).
      ports: clusterPortsFrom(await freePortRun(clusterPortSpan(dispatchers)), dispatchers),
      dispatchers,
      // Ten processes starting while the rest of the suite runs on two cores: be patient.
      startTimeoutMs: 90_000,
      onLine: (name, line) => {
        if (line.includes(HELD_AFTER_STOP)) heldAfterStop.push(`[${name}] ${line}`);
        logLine(name, line);
      },
    });
  } catch (err) {
    await stopServers();
    throw err;
  }
  // The admin CLI's code against the same SQLite file the services share.
  const store = openEmbeddedStore(dataDir);
  const admin = (...argv: string[]) => runAdminCommand(argv, { store, clock }) as Promise<Record<string, any>>;
  const key: ClusterHarness['key'] = async (orgId, opts = {}) => {
    const env = opts.env ?? ENVIRONMENTS[0];
    const args = ['key', 'create', '--org', orgId, '--env', env];
    if (opts.scopes) args.push('--scopes', opts.scopes.join(','));
    const created = await admin(...args);
    return { orgId, keyId: created['id'], key: created['key'], env, api: new ApiClient(cluster.apiUrl, created['key']) };
  };

  return {
    url: cluster.apiUrl,
    clock,
    cluster,
    nats,
    redis,
    dataDir,
    admin,
    key,
    async tenant(opts = {}) {
      const org = await admin('org', 'create', '--name', 'Cluster org', '--plan', opts.plan ?? 'business');
      return key(org['id'], { env: opts.env, scopes: opts.scopes });
    },
    async advance(ms) {
      clock.advance(ms);
      // FileOffsetClock re-reads within 5 ms; sweepers tick every 25 ms.
      await new Promise((resolve) => setTimeout(resolve, 120));
    },
    async close() {
      await cluster.stop();
      await store.close();
      await stopServers();
      rmSync(dataDir, { recursive: true, force: true });
      if (heldAfterStop.length > 0) throw new Error(`held open after their stop:\n${heldAfterStop.join('\n')}`);
    },
  };
}
