import type { Clock } from '@wirehook/core';
import { systemClock } from '@wirehook/core';
import type { Logger } from 'pino';
import { FileOffsetClock } from './file-offset-clock.ts';
import { SERVICE_STOP_MS } from '@wirehook/core/without-schemas';
import { afterWritten } from './after-written.ts';
import { runComponents, STOPPED_LINGER_MS, stopReasonText, type Component } from './lifecycle.ts';
import { type ReadinessCheck, stoppingCheck } from './readiness.ts';
import { createLogger, type LogFormat } from './logger.ts';
import type { Registry } from 'prom-client';
import { createRegistry, metricsServer, type ProcessState } from './metrics.ts';
import { StartupError } from './sealing-keys.ts';
import { stopOnSignals } from './signal-stop.ts';

/** What every service main gets before it wires its own parts. */
export interface ServiceContext {
  logger: Logger;
  clock: Clock;
  /** Where the service registers its metrics (served on METRICS_PORT). */
  registry: Registry;
  /** The dependencies `/readyz` checks: `build` adds one per store, bus or cache it opens. */
  readiness: ReadinessCheck[];
  /**
   * Aborted by a stop asked while `build` runs (a pod deleted during a long start): what `build`
   * waits for ends early, and gives up what it holds (a MongoDB layout upgrade's lease).
   */
  signal: AbortSignal;
}

/** Said when a stop asked during the start has ended it. */
export const STOPPED_WHILE_STARTING = 'stopped while starting';

/**
 * Runs one service process: logger, clock, metrics and health on METRICS_PORT, then the
 * components `build` returns, stopped in reverse order on SIGTERM/SIGINT (within
 * `config.stopDeadlineMs`: a service whose work in flight lasts longer than 20 s says how long;
 * SIGTERM only under the cluster launcher, WIREHOOK_EXIT_WITH_PARENT: Ctrl-C is the launcher's).
 */
export async function runService(
  name: string,
  config: {
    LOG_LEVEL: string;
    LOG_FORMAT?: LogFormat;
    METRICS_PORT: number;
    METRICS_HOST: string;
    WIREHOOK_TEST_CLOCK_FILE?: string | undefined;
    WIREHOOK_EXIT_WITH_PARENT?: boolean;
    /** How long a stop may take before the process exits anyway (20 s unless the service says). */
    stopDeadlineMs?: number;
  },
  build: (ctx: ServiceContext) => Promise<Component[]> | Component[],
): Promise<void> {
  const logger = createLogger({ name, level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const clock = config.WIREHOOK_TEST_CLOCK_FILE ? new FileOffsetClock(config.WIREHOOK_TEST_CLOCK_FILE) : systemClock;
  const registry = createRegistry(name);
  const state: ProcessState = { state: 'starting' };
  // Not ready until build is done: it may be waiting for NATS or the store (connectWithRetry).
  const starting: ReadinessCheck = { name: 'starting', gates: true, probe: async () => Promise.reject(new Error('connecting to its dependencies')) };
  const readiness: ReadinessCheck[] = [starting];
  // The health port first: while a dependency is awaited at start, the process is live and
  // says it is not ready, instead of being unreachable.
  const metrics = metricsServer(registry, config.METRICS_PORT, config.METRICS_HOST, readiness, state);
  // Asked to stop — a stop signal, or the launcher gone — at any point from here to the end
  // (stopOnSignals): `build` hears it too. SIGTERM only under the launcher: Ctrl-C is its own.
  const stop = stopOnSignals(logger, config.WIREHOOK_EXIT_WITH_PARENT ? ['SIGTERM'] : ['SIGTERM', 'SIGINT']);
  const deadlineMs = config.stopDeadlineMs ?? SERVICE_STOP_MS;
  let startDeadline: NodeJS.Timeout | undefined;
  try {
    await metrics.start();
    if (config.WIREHOOK_EXIT_WITH_PARENT) {
      // The launcher holds the other end of stdin. When it is gone — however it went, SIGKILL
      // included, when no handler of its runs — the pipe closes: stop as on SIGTERM.
      process.stdin.once('close', () => {
        if (!stop.signal.aborted) logger.warn('the launcher is gone (stdin closed); stopping');
        stop.ask('stdin closed');
      });
      process.stdin.resume();
      // Watching must not keep the process alive once its components have stopped.
      (process.stdin as { unref?: () => void }).unref?.();
      // Ctrl-C in the launcher's terminal reaches every process of its group at once; the launcher
      // then stops its services one by one, in order (the gateway before NATS, …): SIGINT is its alone.
      process.on('SIGINT', () => {});
    }
    // A stop during the build ends it (what it waits for hears `signal`; a MongoDB layout upgrade
    // gives its lease up), or the process at the stop deadline, as a stop past its deadline does.
    const duringBuild = () => {
      logger.info({ reason: stopReasonText(stop.signal.reason), deadlineMs }, 'asked to stop while starting; ending the start');
      startDeadline = setTimeout(() => {
        logger.error({ deadlineMs }, 'the start did not end by the stop deadline; exiting');
        process.exit(1);
      }, deadlineMs);
      startDeadline.unref();
    };
    // Asked already (while the health port opened): the listener would never fire.
    if (stop.signal.aborted) duringBuild();
    else stop.signal.addEventListener('abort', duringBuild, { once: true });
    let components: Component[];
    try {
      components = await build({ logger, clock, registry, readiness, signal: stop.signal });
    } finally {
      stop.signal.removeEventListener('abort', duringBuild);
    }
    // Built, but asked to stop meanwhile (nothing in it heard it): nothing is started.
    stop.signal.throwIfAborted();
    // Already listening: stopped last, with everything else.
    const health: Component = { name: 'metrics', start: async () => {}, stop: () => metrics.stop() };
    const allStarted = await runComponents([health, ...components], {
      logger,
      deadlineMs,
      stopWhen: stop.signal,
      // Once a stop begins: not ready (a load balancer that reads /readyz sends no new work).
      onStopping: () => {
        readiness.push(stoppingCheck);
        state.state = 'stopping';
      },
    });
    // Stopped while it started: never ready.
    if (!allStarted) return;
    readiness.splice(readiness.indexOf(starting), 1);
    state.state = 'running';
    logger.info({ metricsPort: config.METRICS_PORT }, `${name} ready`);
  } catch (err) {
    if (!stop.signal.aborted) exitOnStartFailure(name, logger, err);
    clearTimeout(startDeadline);
    // A failure of its own the stop came before (a newer layout, a wrong key): said, not lost.
    if (err !== stop.signal.reason) logger.error({ err }, 'start failed while stopping');
    // Told to stop while starting: done as asked. Exit 0, as a stop does, once stdout has written
    // what it holds (the connections the start opened would otherwise hold the process open).
    logger.info(STOPPED_WHILE_STARTING);
    afterWritten(process.stdout, STOPPED_LINGER_MS, () => process.exit(0));
  }
}

/** Ends a process that could not start: a StartupError (the operator's to fix) as one line that says what, anything else with its stack. */
export function exitOnStartFailure(name: string, logger: Logger, err: unknown): never {
  if (err instanceof StartupError) {
    logger.fatal(`${name} cannot start: ${err.message}`);
    process.stderr.write(`${name}: ${err.message}\n`);
  } else {
    logger.fatal({ err }, `${name} failed to start`);
  }
  process.exit(1);
}
