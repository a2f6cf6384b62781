import { SERVICE_STOP_MS } from '@wirehook/core/without-schemas';
import type { Logger } from 'pino';
import { afterWritten } from './after-written.ts';

/** How long a process stopped in order may stay up for what still holds its event loop. */
export const STOPPED_LINGER_MS = 1_000;

/** What a process stopped in order says as it ends though something still held it (a leak: tests look for it). */
export const HELD_AFTER_STOP = `still held open ${STOPPED_LINGER_MS} ms after its stop; exiting`;

/** A long-lived part of a process. */
export interface Component {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts components in order and, once `stopWhen` aborts (stopOnSignals: the process's stop
 * signals), stops them in reverse order. A hard deadline (`deadlineMs`, core's SERVICE_STOP_MS unless the process says) ends the process with
 * code 1 if draining takes longer. A signal during the start (a pod deleted while it starts, Ctrl-C
 * right after `./dev start`) lets the start in flight finish, starts nothing more and stops what
 * started: the process ends then, instead of serving on with its store closed until the deadline.
 * Stopped, it exits 0 once nothing holds its event loop, or STOPPED_LINGER_MS later, naming what did.
 * @returns false when a stop came before every component had started (the caller is not ready).
 */
export async function runComponents(
  components: Component[],
  options: {
    logger: Logger;
    deadlineMs?: number;
    /** Called once, as the stop begins (before any component stops): the process stops being ready. */
    onStopping?: () => void;
    /**
     * What stops it: aborted (already, or later), with the stop's reason. The process's stop
     * signals are its listeners' from before the build (stopOnSignals): none is lost, or takes
     * the default action, between the build and this.
     */
    stopWhen: AbortSignal;
  },
): Promise<boolean> {
  const { logger } = options;
  const started: Component[] = [];
  let stopping = false;
  /** The start in flight: a stop waits for it (a component half started cannot be stopped). */
  let starting: Promise<void> | undefined;
  const deadlineMs = options.deadlineMs ?? SERVICE_STOP_MS;
  const stopAll = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    // The deadline in the line: an operator sees how long this stop may take (and a test, that a main passed its own).
    logger.info({ reason, deadlineMs }, 'shutting down');
    options.onStopping?.();
    const deadline = setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown deadline passed; exiting');
      process.exit(1);
    }, deadlineMs);
    deadline.unref();
    // Its failure is the start loop's to report.
    await starting?.catch(() => {});
    for (const c of started.reverse()) {
      try {
        await c.stop();
      } catch (err) {
        logger.error({ err, component: c.name }, 'stop failed');
      }
    }
    clearTimeout(deadline);
    logger.info('stopped');
    process.exitCode = 0;
    // Stopped in order, the process ends once nothing holds its event loop. Should something still
    // hold it (an exporter retrying, a timer or socket a library keeps), it ends anyway, saying what:
    // left alone, the deadline would end it later with exit code 1, a failed stop.
    setTimeout(() => {
      logger.warn({ heldBy: process.getActiveResourcesInfo() }, HELD_AFTER_STOP);
      // Once stdout has written what it holds (process.exit drops what a slow pipe reader left), or a second later.
      const code = Number(process.exitCode ?? 0); // 0 unless something after the stop said otherwise
      afterWritten(process.stdout, STOPPED_LINGER_MS, () => process.exit(code));
    }, STOPPED_LINGER_MS).unref();
  };
  const { stopWhen } = options;
  const stopNow = () => void stopAll(stopReasonText(stopWhen.reason));
  if (stopWhen.aborted) stopNow();
  else stopWhen.addEventListener('abort', stopNow, { once: true });
  for (const c of components) {
    if (stopping) return false;
    // Counted as started in the same step, so a stop that waits for it stops it too.
    starting = c.start().then(() => void started.push(c));
    try {
      await starting;
    } catch (err) {
      if (!stopping) throw err;
      // The stop under way goes on (a start failure would end the process mid-drain): said, not thrown.
      logger.error({ err, component: c.name }, 'start failed while stopping');
      return false;
    }
  }
  return !stopping;
}

/** A stop's reason as a log line names it: a signal's name ('SIGTERM'), an Error's being its message. */
export function stopReasonText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
