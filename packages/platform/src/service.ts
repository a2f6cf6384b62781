import type { Clock } from '@wirehook/core';
import { systemClock } from '@wirehook/core';
import type { Logger } from 'pino';
import { FileOffsetClock } from './file-offset-clock.ts';
import { runComponents, type Component } from './lifecycle.ts';
import type { ReadinessCheck } from './readiness.ts';
import { createLogger, type LogFormat } from './logger.ts';
import type { Registry } from 'prom-client';
import { createRegistry, metricsServer } from './metrics.ts';
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
 * components `build` returns, stopped in reverse order on SIGTERM/SIGINT.
 */
export async function runService(
  name: string,
  config: { LOG_LEVEL: string; LOG_FORMAT?: LogFormat; METRICS_PORT: number; METRICS_HOST: string; WIREHOOK_TEST_CLOCK_FILE?: string | undefined; WIREHOOK_EXIT_WITH_PARENT?: boolean },
  build: (ctx: ServiceContext) => Promise<Component[]> | Component[],
): Promise<void> {
  const logger = createLogger({ name, level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const clock = config.WIREHOOK_TEST_CLOCK_FILE ? new FileOffsetClock(config.WIREHOOK_TEST_CLOCK_FILE) : systemClock;
  const registry = createRegistry(name);
  const readiness: ReadinessCheck[] = [];
  try {
    const components = await build({ logger, clock, registry, readiness });
    await runComponents([...components, metricsServer(registry, config.METRICS_PORT, config.METRICS_HOST, readiness)], { logger });
    logger.info({ metricsPort: config.METRICS_PORT }, `${name} ready`);
    if (config.WIREHOOK_EXIT_WITH_PARENT) {
      // The launcher holds the other end of stdin. When it is gone — however it went, SIGKILL
      // included, when no handler of its runs — the pipe closes: stop as on SIGTERM.
      process.stdin.once('close', () => {
        logger.warn('the launcher is gone (stdin closed); stopping');
        process.kill(process.pid, 'SIGTERM');
      });
      process.stdin.resume();
      // Watching must not keep the process alive once its components have stopped.
      (process.stdin as { unref?: () => void }).unref?.();
    }
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
