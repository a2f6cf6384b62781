import { SERVICE_STOP_MS } from '@wirehook/core/without-schemas';
import type { Logger } from 'pino';

/** A long-lived part of a process. */
export interface Component {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts components in order and, on the first SIGTERM or SIGINT, stops them in reverse
 * order. A hard deadline (`deadlineMs`, core's SERVICE_STOP_MS unless the process says) ends the process with
 * code 1 if draining takes longer.
 */
export async function runComponents(components: Component[], options: { logger: Logger; deadlineMs?: number }): Promise<void> {
  const { logger } = options;
  const started: Component[] = [];
  let stopping = false;
  const deadlineMs = options.deadlineMs ?? SERVICE_STOP_MS;
  const stopAll = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    // The deadline in the line: an operator sees how long this stop may take (and a test, that a main passed its own).
    logger.info({ reason, deadlineMs }, 'shutting down');
    const deadline = setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown deadline passed; exiting');
      process.exit(1);
    }, deadlineMs);
    deadline.unref();
    for (const c of started.reverse()) {
      try {
        await c.stop();
      } catch (err) {
        logger.error({ err, component: c.name }, 'stop failed');
      }
    }
    logger.info('stopped');
    process.exitCode = 0;
  };
  process.once('SIGTERM', () => void stopAll('SIGTERM'));
  process.once('SIGINT', () => void stopAll('SIGINT'));
  for (const c of components) {
    await c.start();
    started.push(c);
  }
}
