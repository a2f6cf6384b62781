import type { Clock } from '@wirehook/core';
import { systemClock } from '@wirehook/core';
import type { Logger } from 'pino';
import { FileOffsetClock } from './file-offset-clock.ts';
import { runComponents, type Component } from './lifecycle.ts';
import { type ReadinessCheck, stoppingCheck } from './readiness.ts';
import { createLogger, type LogFormat } from './logger.ts';
import type { Registry } from 'prom-client';
import { createRegistry, metricsServer, type ProcessState } from './metrics.ts';
import { StartupError } from './sealing-keys.ts';

/** What every service main gets before it wires its own parts. */
export interface ServiceContext {
  logger: Logger;
  clock: Clock;
  /** Where the service registers its metrics (served on METRICS_PORT). */
  registry: Registry;
  /** The dependencies `/readyz` checks: `build` adds one per store, bus or cache it opens. */
  readiness: ReadinessCheck[];
}

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
  // Once a stop begins: not ready (a load balancer that reads /readyz sends no new work), and a
  // second stop request (the launcher gone meanwhile) does not cut the drain short.
  let stopBegun = false;
  // The health port first: while a dependency is awaited at start, the process is live and
  // says it is not ready, instead of being unreachable.
  const metrics = metricsServer(registry, config.METRICS_PORT, config.METRICS_HOST, readiness, state);
  try {
    await metrics.start();
    if (config.WIREHOOK_EXIT_WITH_PARENT) {
      // The launcher holds the other end of stdin. When it is gone — however it went, SIGKILL
      // included, when no handler of its runs — the pipe closes: stop as on SIGTERM (or at
      // once, when still starting and no handler is set).
      process.stdin.once('close', () => {
        // A stop under way goes on: a SIGTERM now would meet no handler and end the process mid-drain.
        if (stopBegun) return;
        logger.warn('the launcher is gone (stdin closed); stopping');
        process.kill(process.pid, 'SIGTERM');
      });
      process.stdin.resume();
      // Watching must not keep the process alive once its components have stopped.
      (process.stdin as { unref?: () => void }).unref?.();
      // Ctrl-C in the launcher's terminal reaches every process of its group at once; the launcher
      // then stops its services one by one, in order (the gateway before NATS, …): SIGINT is its alone.
      process.on('SIGINT', () => {});
    }
    const components = await build({ logger, clock, registry, readiness });
    // Already listening: stopped last, with everything else.
    const health: Component = { name: 'metrics', start: async () => {}, stop: () => metrics.stop() };
    const allStarted = await runComponents([health, ...components], {
      logger,
      ...(config.stopDeadlineMs === undefined ? {} : { deadlineMs: config.stopDeadlineMs }),
      ...(config.WIREHOOK_EXIT_WITH_PARENT ? { stopOn: ['SIGTERM'] as const } : {}),
      onStopping: () => {
        stopBegun = true;
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
    exitOnStartFailure(name, logger, err);
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
