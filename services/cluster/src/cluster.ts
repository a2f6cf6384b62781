import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ATTEMPT_TIMEOUT_MS, embeddedStopMs, SERVICE_STOP_MS, senderStopMs } from '@wirehook/core/without-schemas';
import type { ServiceSpec } from './service-spec.ts';
import { eachLine } from './output-lines.ts';
import { OutputTail, startLive } from './start-wait.ts';

const servicesDir = join(import.meta.dirname, '..', '..');

export { readDispatchers } from './dispatchers.ts';
export type { ServiceSpec } from './service-spec.ts';

export interface ClusterPorts {
  api: number;
  intakeGrpc: number;
  recoveryGrpc: number;
  relayGrpc: number;
  portal: number;
  /** First of the consecutive metrics ports: gateway, intake, relay, recovery, alerting, portal, dispatchers. */
  metricsBase: number;
}

/** Consecutive ports {@link clusterPortsFrom} lays a cluster of `dispatchers` out on. */
export function clusterPortSpan(dispatchers: number): number {
  return metricsPortCount(dispatchers) + 5;
}

/** A cluster's ports from `base` on: its metrics ports first, then the API, gRPC and portal ports. */
export function clusterPortsFrom(base: number, dispatchers: number): ClusterPorts {
  const after = base + metricsPortCount(dispatchers);
  return { metricsBase: base, api: after, intakeGrpc: after + 1, recoveryGrpc: after + 2, relayGrpc: after + 3, portal: after + 4 };
}

/** Metrics ports of the services before the dispatchers (see clusterSpecs); then one per dispatcher. */
const SERVICES_BEFORE_DISPATCHERS = 6;

function metricsPortCount(dispatchers: number): number {
  return SERVICES_BEFORE_DISPATCHERS + dispatchers;
}

export interface ClusterOptions {
  /** Environment every service gets (store, delivery rules, NATS_URL, REDIS_URL, …). */
  env: Record<string, string>;
  ports: ClusterPorts;
  dispatchers: number;
  /** Each line a service prints, with its name; default: prefixed to this process's stdout. */
  onLine?: (service: string, line: string) => void;
  /** How long a service may take to report healthy. */
  startTimeoutMs?: number;
  /**
   * A service exited on its own (not through `kill`, `restart` or `stop`): a crash. Default:
   * nothing (tests that kill services say so through `kill`). The launcher stops everything.
   */
  onExit?: (service: string, code: number | null, signal: NodeJS.Signals | null) => void;
  /** A service process was started (the launcher records its pid, to find it after a kill -9 of its own). */
  onSpawn?: (service: string, pid: number) => void;
  /**
   * Stops the start (the launcher told to stop while its services start): no service is spawned
   * after it, those spawned are stopped as `stop` does, and the start rejects with its reason.
   */
  signal?: AbortSignal;
}

/** The running services of a cluster. */
export interface Cluster {
  apiUrl: string;
  specs: ServiceSpec[];
  /** Sends a signal to one service (e.g. SIGKILL a dispatcher) and waits for it to exit (its output read: stopChild). */
  kill(name: string, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped or killed service again and waits until it is healthy. */
  restart(name: string): Promise<void>;
  /** Starts one more process (another replica, with its own ports) and waits until it is healthy. */
  add(spec: ServiceSpec): Promise<void>;
  /** Stops every service (SIGTERM, then SIGKILL after a grace period), in reverse start order. */
  stop(): Promise<void>;
}

/** The services of a cluster and their environments, in start order (the first alone, then the rest together). */
export function clusterSpecs(options: ClusterOptions): ServiceSpec[] {
  const { ports } = options;
  // One secret for the calls between this cluster's services, unless the caller chose one.
  const env = { ...options.env, INTERNAL_AUTH_TOKEN: options.env['INTERNAL_AUTH_TOKEN'] || randomBytes(32).toString('base64url') };
  const metrics = (i: number) => ports.metricsBase + i;
  // The local cluster's fixed IP pool is a loopback address of its own (loopback is a /8): the
  // relay sends from it, the gateway lists it (GET /v1/egress-ips).
  const relaySourceIps = options.env['RELAY_SOURCE_IPS'] || '127.0.0.2';
  const spec = (name: string, service: string, i: number, extra: Record<string, string> = {}): ServiceSpec => ({
    name,
    service,
    metricsPort: metrics(i),
    env: { ...env, ...extra, METRICS_PORT: String(metrics(i)) },
  });
  return [
    spec('message-intake', 'message-intake', 1, { GRPC_PORT: String(ports.intakeGrpc) }),
    // Before the dispatchers, which call it: stopped (in reverse) after them, so their sends in flight through it finish.
    spec('egress-relay', 'egress-relay', 2, { GRPC_PORT: String(ports.relayGrpc), RELAY_SOURCE_IPS: relaySourceIps }),
    ...Array.from({ length: options.dispatchers }, (_, i) =>
      spec(`dispatcher-${i + 1}`, 'dispatcher', SERVICES_BEFORE_DISPATCHERS + i, { RELAY_GRPC_ADDRESS: `127.0.0.1:${ports.relayGrpc}` }),
    ),
    spec('recovery', 'recovery', 3, { GRPC_PORT: String(ports.recoveryGrpc) }),
    spec('alerting', 'alerting', 4),
    // The portal's API calls intake (test messages, re-sends) and recovery, as the gateway's does.
    spec('portal', 'portal', 5, {
      PORT: String(ports.portal),
      INTAKE_GRPC_ADDRESS: `127.0.0.1:${ports.intakeGrpc}`,
      RECOVERY_GRPC_ADDRESS: `127.0.0.1:${ports.recoveryGrpc}`,
    }),
    spec('gateway', 'gateway', 0, {
      PORT: String(ports.api),
      RELAY_SOURCE_IPS: relaySourceIps,
      PORTAL_PUBLIC_URL: options.env['PORTAL_PUBLIC_URL'] || `http://localhost:${ports.portal}`,
      INTAKE_GRPC_ADDRESS: `127.0.0.1:${ports.intakeGrpc}`,
      RECOVERY_GRPC_ADDRESS: `127.0.0.1:${ports.recoveryGrpc}`,
    }),
  ];
}

/**
 * How long a service told to stop (SIGTERM) may take before it is killed: 10 s; for the gateway its
 * whole stop (SERVICE_STOP_MS, half of it `wirehook listen`'s drain) and 10 s more; for those that
 * send webhooks senderKillWaitMs.
 */
function stopWaitMs(spec: ServiceSpec | undefined): number {
  if (spec?.service === 'gateway') return SERVICE_STOP_MS + 10_000;
  if (spec?.service !== 'dispatcher' && spec?.service !== 'egress-relay') return 10_000;
  return senderKillWaitMs(spec.env['DELIVERY_TIMEOUT_MS']);
}

/** The DELIVERY_TIMEOUT_MS a process was given, the default when none or not a number. */
function timeoutOf(deliveryTimeoutMs: string | undefined): number {
  const timeoutMs = Number(deliveryTimeoutMs || ATTEMPT_TIMEOUT_MS);
  return Number.isFinite(timeoutMs) ? timeoutMs : ATTEMPT_TIMEOUT_MS;
}

/**
 * How long a launcher waits for a process that sends webhooks (a dispatcher, the relay) to stop
 * before it kills it: its own stop's deadline (core's senderStopMs) and 10 s more, as the chart's
 * grace period gives their pods.
 */
export function senderKillWaitMs(deliveryTimeoutMs: string | undefined): number {
  return senderStopMs(timeoutOf(deliveryTimeoutMs)) + 10_000;
}

/** The same for embedded mode (`wirehook listen`'s drain first: core's embeddedStopMs) and 10 s more. */
export function embeddedKillWaitMs(deliveryTimeoutMs: string | undefined): number {
  return embeddedStopMs(timeoutOf(deliveryTimeoutMs)) + 10_000;
}

/** How long a stopped service's output may still come after its exit (what its pipes held) before they are closed. */
export const OUTPUT_AFTER_EXIT_MS = 2_000;

/**
 * Sends `signal` to `child` (SIGKILL after `hardMs`) and resolves once it has exited and its output
 * has been read to the end: its 'close', not its 'exit' — a line it wrote just before it ended (a
 * stop's HELD_AFTER_STOP, which the cluster tests look for) may still be in the pipe at 'exit'.
 * Within OUTPUT_AFTER_EXIT_MS of the exit: a process it left holding its pipes does not hold the stop.
 */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals, hardMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return; // ended already: nothing to stop or wait for
  const closed = new Promise((resolve) => child.once('close', resolve));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const hard = setTimeout(() => child.kill('SIGKILL'), hardMs);
  await exited;
  clearTimeout(hard);
  // 'close' waits for every pipe after stdin and the IPC channel: all of them are cut.
  const late = setTimeout(() => {
    for (const stream of child.stdio.slice(1)) stream?.destroy();
    if (child.connected) child.disconnect();
  }, OUTPUT_AFTER_EXIT_MS);
  await closed;
  clearTimeout(late);
}

/**
 * Starts every Wirehook service as its own child process (the shape the Helm chart
 * deploys) and waits until each reports healthy. NATS, Redis and the store must already
 * be reachable through `options.env`.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const specs = clusterSpecs(options);
  const children = new Map<string, ChildProcess>();
  const onLine = options.onLine ?? ((service, line) => process.stdout.write(`[${service}] ${line}\n`));
  const timeout = options.startTimeoutMs ?? 30_000;

  /** Children being stopped on purpose: their exit is no crash. */
  const stopping = new WeakSet<ChildProcess>();
  const spawnOne = (spec: ServiceSpec) => {
    options.signal?.throwIfAborted();
    const child = spawn(process.execPath, [join(servicesDir, spec.service, 'src', 'main.ts')], {
      // stdin stays open to this process: the service stops when it closes (this process died).
      env: {
        ...process.env,
        // On a terminal, the children write one coloured line per event (they write to a pipe).
        ...(process.stdout.isTTY && !process.env['LOG_FORMAT'] ? { LOG_FORMAT: 'pretty', FORCE_COLOR: '1' } : {}),
        ...spec.env,
        WIREHOOK_INSTANCE: spec.name,
        WIREHOOK_EXIT_WITH_PARENT: 'true',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.set(spec.name, child);
    if (child.pid !== undefined) options.onSpawn?.(spec.name, child.pid);
    child.once('exit', (code, signal) => {
      if (!stopping.has(child)) options.onExit?.(spec.name, code, signal);
    });
    const output = new OutputTail();
    for (const stream of [child.stdout!, child.stderr!]) {
      eachLine(stream, (line) => {
        output.push(line);
        onLine(spec.name, line);
      });
    }
    return { child, output };
  };
  const launch = (spec: ServiceSpec) =>
    startLive(spec, timeout, {
      spawn: () => spawnOne(spec),
      kill: () => stopOne(spec.name, 'SIGKILL'),
      retrying: (err) => process.stderr.write(`wirehook cluster: ${err.message}\nwirehook cluster: starting ${spec.name} once more\n`),
    });

  const stopOne = async (name: string, signal: NodeJS.Signals = 'SIGTERM') => {
    const child = children.get(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    stopping.add(child);
    await stopChild(child, signal, stopWaitMs(specs.find((s) => s.name === name)));
  };

  const cluster: Cluster = {
    apiUrl: `http://127.0.0.1:${options.ports.api}`,
    specs,
    kill: (name, signal = 'SIGKILL') => stopOne(name, signal),
    async restart(name) {
      const spec = specs.find((s) => s.name === name);
      if (!spec) throw new Error(`no service ${name}`);
      await stopOne(name);
      await launch(spec);
    },
    async add(spec) {
      if (specs.some((s) => s.name === spec.name)) throw new Error(`a service named ${spec.name} exists`);
      specs.push(spec);
      await launch(spec);
    },
    async stop() {
      for (const spec of [...specs].reverse()) await stopOne(spec.name);
    },
  };

  const starting = startInOrder(specs, launch);
  // A stop during the start does not wait for the services still starting to report live.
  const stopped = new Promise<never>((_, reject) => {
    const { signal } = options;
    if (signal?.aborted) reject(signal.reason);
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  try {
    await Promise.race([starting, stopped]);
  } catch (err) {
    await cluster.stop();
    // The starts still waiting see their process gone (and spawn none again: the signal, or their failure).
    await starting.catch(() => {});
    throw err;
  }
  return cluster;
}

/**
 * Starts a cluster's services through `launch`: message-intake (the first) alone, as it brings
 * the store's schema up to date (the others wait for that at their start, migrate-wait); then
 * the rest side by side, as a Deployment's pods start: each copes with a peer not up yet (a
 * gRPC channel connects when first used), and on 2 cores their module loading overlaps instead
 * of queuing (a local cluster 8.0 → 5.9 s to start). @throws once every start has settled: the
 * one failure, or an AggregateError naming each.
 */
export async function startInOrder(specs: ServiceSpec[], launch: (spec: ServiceSpec) => Promise<void>): Promise<void> {
  const [first, ...rest] = specs;
  if (first !== undefined) await launch(first);
  const started = await Promise.allSettled(rest.map((spec) => launch(spec)));
  const failed = started.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
  // Each failure told: one service's hides none of the others'.
  if (failed.length === 1) throw failed[0];
  if (failed.length > 1)
    throw new AggregateError(
      failed,
      `${failed.length} services failed to start:\n${failed.map((e) => (e instanceof Error ? e.message : String(e))).join('\n')}`,
    );
}
