import type { Logger } from 'pino';

/** The waits between attempts: 0.5 s doubling to 10 s, then every 10 s. */
export const CONNECT_BACKOFF_MS = [500, 1_000, 2_000, 5_000, 10_000] as const;

/**
 * Connects to a dependency at start, again and again until it answers: a service started
 * before NATS (or while it restarts) waits, live and not ready, instead of exiting and
 * being restarted in a loop. Logs the first failure, then every tenth, naming `what`.
 */
export async function connectWithRetry<T>(
  what: string,
  connect: () => Promise<T>,
  logger: Pick<Logger, 'warn' | 'info'>,
  backoffMs: readonly number[] = CONNECT_BACKOFF_MS,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const connected = await connect();
      if (attempt > 1) logger.info({ attempts: attempt }, `${what} answered; starting`);
      return connected;
    } catch (err) {
      const waitMs = backoffMs[Math.min(attempt - 1, backoffMs.length - 1)]!;
      if (attempt === 1 || attempt % 10 === 0) {
        logger.warn({ err, attempts: attempt, retryInMs: waitMs }, `${what} unreachable at start; not ready, retrying (${(err as Error).message})`);
      }
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

/** A server URL fit for a log line: user and password left out. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}
