// One run of the cluster launcher over a DATA_DIR: what it started, how it stops, and the
// steps that need both — claiming the DATA_DIR from an earlier run, and starting the services.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startCluster, type Cluster } from './cluster.ts';
import type { LauncherConfig } from './launcher-config.ts';
import { endLeftover, liveProcess, liveRefs, liveServer, selfRef, writeRefs, type ProcessRef } from './leftovers.ts';

/** Where the services find NATS and Redis: given, or started here. */
export interface ServerUrls {
  natsUrl: string;
  redisUrl: string;
}

/** Says a line of the launcher's own on stderr (stdout carries the servers' and services' output). */
export function say(line: string): void {
  process.stderr.write(`cluster: ${line}\n`);
}

/** `url` without its user and password. */
export function withoutPassword(url: string): string {
  return url.replace(/^([a-z+]+:\/\/)[^@/?]*@/i, '$1…@');
}

/**
 * The launcher's state: the servers it started, the cluster once there, and whether it is
 * stopping. Whatever goes wrong ends in {@link fail}: one line, and nothing it started is left
 * running. Its pid files (of itself, its services, and the servers it started: they write
 * their own) are in DATA_DIR/run, where a run over the same DATA_DIR finds what an earlier one
 * left behind.
 */
export class ClusterLauncher {
  readonly config: LauncherConfig;
  readonly dataDir: string;
  readonly #runDir: string;
  readonly #launcherFile: string;
  readonly #servicesFile: string;
  readonly #servers: ChildProcess[] = [];
  #stopping = false;
  #cluster: Cluster | undefined;
  /** Every service process spawned, by name (the latest of each): a forced stop kills them. */
  readonly #spawned = new Map<string, ProcessRef>();
  /** The services' start, while it runs: a stop ends it and waits for what it spawned to stop. */
  #starting: Promise<Cluster> | undefined;
  readonly #startStop = new AbortController();

  constructor(config: LauncherConfig) {
    this.config = config;
    this.dataDir = resolve(config.DATA_DIR);
    this.#runDir = join(this.dataDir, 'run');
    this.#launcherFile = join(this.#runDir, 'launcher.pid');
    this.#servicesFile = join(this.#runDir, 'services.pid');
  }

  /** True once a stop has begun: a server or service exiting after it is no crash. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /** The pid file `server` (nats-server, redis-server) writes when started here. */
  pidFile(server: string): string {
    return join(this.#runDir, `${server}.pid`);
  }

  /** Makes DATA_DIR and its run directory. */
  prepareDataDir(): void {
    mkdirSync(this.dataDir, { recursive: true });
    mkdirSync(this.#runDir, { recursive: true });
  }

  /**
   * Ctrl-C and SIGTERM stop everything (exit 0), the services one by one and then the servers. A
   * second Ctrl-C during that stop ends it at once: every service killed (SIGKILL), the servers
   * told to go, exit 130. Whatever happens to this process, the servers it started go with it:
   * closing their stdin tells their watchdog to stop them, and the pipe closes by itself if this
   * process is SIGKILLed.
   */
  handleSignals(): void {
    process.on('exit', () => {
      for (const s of this.#servers) s.stdin?.end();
    });
    process.on('SIGINT', () => {
      if (!this.#stopping) return void this.stop();
      say('stopping at once (a second Ctrl-C): the services are killed, their work in flight cut short');
      for (const ref of this.#spawned.values()) {
        // Only a process still the one spawned (its start time): a pid may have been reused since.
        if (liveProcess(ref.pid)?.startTime === ref.startTime) process.kill(ref.pid, 'SIGKILL');
      }
      process.exit(130);
    });
    process.on('SIGTERM', () => void this.stop());
  }

  /** A server started here: stopped with the launcher. */
  adoptServer(child: ChildProcess): void {
    this.#servers.push(child);
  }

  /** Says `line` and stops everything started so far (exit 1). */
  async fail(line: string): Promise<never> {
    say(line);
    await this.stop(1);
    return process.exit(1);
  }

  /** Stops the services, then the servers started here; removes the pid files; exits with `code`. */
  async stop(code = 0): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    // Still starting: the start stops what it spawned (the services before the servers they use, and before their pid file goes).
    this.#startStop.abort(new Error('the launcher is stopping'));
    await this.#starting?.catch(() => {});
    await this.#cluster?.stop();
    await Promise.all(
      this.#servers.map((s) => {
        if (s.exitCode !== null || s.signalCode !== null) return undefined;
        const exited = new Promise((resolve) => s.once('exit', resolve));
        s.stdin?.end(); // the watchdog stops the server
        return exited;
      }),
    );
    rmSync(this.#servicesFile, { force: true });
    rmSync(this.#launcherFile, { force: true });
    process.exit(code);
  }

  /**
   * One launcher per DATA_DIR (a second one would take the first one's processes for
   * leftovers): refused with exit 1 while another runs; else this one's pid is written, and
   * what an earlier run left is ended.
   */
  async claimDataDir(): Promise<void> {
    const running = liveRefs(this.#launcherFile).find((r) => r.pid !== process.pid);
    if (running) {
      say(`another launcher (pid ${running.pid}) runs over this DATA_DIR (${this.dataDir}); stop it, or set DATA_DIR to another directory`);
      process.exit(1);
    }
    writeRefs(this.#launcherFile, new Map([['launcher', selfRef()]]));
    await this.#endLeftovers();
  }

  /**
   * Starts every service against `urls` and resolves once each reported live. A crashed
   * service is reported at once and the whole cluster stops (exit 1): this is the local
   * launcher, where a half-running cluster only misleads; in Kubernetes the orchestrator
   * restarts pods instead.
   */
  async startServices(urls: ServerUrls): Promise<Cluster> {
    const { config } = this;
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    try {
      this.#starting = startCluster({
        env: { ...env, DATA_DIR: this.dataDir, NATS_URL: urls.natsUrl, REDIS_URL: urls.redisUrl },
        ports: {
          api: config.PORT,
          intakeGrpc: config.INTAKE_GRPC_PORT,
          recoveryGrpc: config.RECOVERY_GRPC_PORT,
          relayGrpc: config.RELAY_GRPC_PORT,
          portal: config.PORTAL_PORT,
          metricsBase: config.METRICS_PORT,
        },
        dispatchers: config.DISPATCHERS,
        startTimeoutMs: config.CLUSTER_START_TIMEOUT_MS,
        onExit: (service, code, signal) => {
          if (!this.#stopping) void this.fail(`${service} exited (${signal ?? `code ${code}`}); stopping the cluster`);
        },
        onSpawn: (service, pid) => {
          const ref = liveProcess(pid);
          if (ref) this.#spawned.set(service, ref);
          writeRefs(this.#servicesFile, this.#spawned);
        },
        signal: this.#startStop.signal,
      });
      this.#cluster = await this.#starting;
    } catch (err) {
      // A stop during the start: the stop under way ends the process (exit 0), not a failure; a service that failed
      // to start meanwhile is said all the same.
      if (this.#stopping) {
        if (err !== this.#startStop.signal.reason) say((err as Error).message);
        return new Promise<never>(() => {});
      }
      return this.fail((err as Error).message); // startCluster stopped what it had started
    }
    return this.#cluster;
  }

  /**
   * Ends what an earlier run over this DATA_DIR left (its launcher killed with -9, and a
   * supervisor starting this one at once): its services, and its nats-server and redis-server
   * when this run starts its own (they would share its files and ports). Each is given 10 s to
   * end by itself (it is usually on its way out already), then SIGTERM, then SIGKILL.
   */
  async #endLeftovers(): Promise<void> {
    const found = liveRefs(this.#servicesFile);
    for (const [server, url] of [
      ['nats-server', this.config.NATS_URL],
      ['redis-server', this.config.REDIS_URL],
    ] as const) {
      const pid = url === undefined ? liveServer(this.pidFile(server), server) : undefined;
      if (pid !== undefined) found.push({ name: server, pid });
    }
    if (found.length === 0) return;
    const named = found.map((f) => `${f.name} (pid ${f.pid})`).join(', ');
    say(`an earlier run over this DATA_DIR left ${named} running; stopping them (10 s to end, then SIGTERM, then SIGKILL)`);
    const outcomes = await Promise.all(found.map((f) => endLeftover(f.pid)));
    const survivors = found.filter((_, i) => outcomes[i] === 'survived');
    if (survivors.length > 0) {
      await this.fail(
        `could not stop ${survivors.map((f) => `${f.name} (pid ${f.pid})`).join(', ')}, left by an earlier run over this DATA_DIR: ` +
          'stop it, or set DATA_DIR to another directory',
      );
    }
  }
}
