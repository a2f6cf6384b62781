import type { Logger } from 'pino';
import { unlessAborted, within } from '@wirehook/core';
import type { NatsConnectOptions } from './common-env.ts';
import { StartupError } from './sealing-keys.ts';

/** The waits between attempts: 0.5 s doubling to 10 s, then every 10 s. */
export const CONNECT_BACKOFF_MS = [500, 1_000, 2_000, 5_000, 10_000] as const;

/** A failed attempt, as `onRetry` hears of it before the wait. */
export interface RetryProgress {
  attempt: number;
  /** Since the first attempt began. */
  elapsedMs: number;
  /** Until the next attempt. */
  waitMs: number;
  error: unknown;
}

export interface RetryOptions<T = unknown> {
  /** The waits between attempts; default CONNECT_BACKOFF_MS. */
  backoffMs?: readonly number[];
  /**
   * Gives up at this time (`Date.now()`, read once, at the call: the wait is then kept on the
   * monotonic clock): an attempt still running then is left behind, and a RetryDeadlineError
   * thrown. One bound can cover several dependencies waited for in turn.
   * Default: never (a service waits, live and not ready).
   */
  deadlineAt?: number;
  /** Called after each failed attempt (a command's progress lines). */
  onRetry?(progress: RetryProgress): void;
  /**
   * Ends the connecting (a process stopping while it still connects in the background): rejects
   * with the signal's reason at once, between attempts or during one (a server that drops the
   * packets leaves an attempt to its own timeout, 20 s for NATS); no further attempt.
   */
  signal?: AbortSignal;
  /** Closes what an attempt connected after `signal` ended the wait for it (it would keep the process alive). */
  discard?(connected: T): unknown;
}

/** A dependency that did not answer before the deadline: `what`, how often it was tried, the last error as `cause`. */
export class RetryDeadlineError extends Error {
  readonly attempts: number;

  constructor(what: string, attempts: number, cause: unknown) {
    super(`${what} did not answer (${attempts} attempt${attempts === 1 ? '' : 's'}; last: ${errorText(cause)})`, { cause });
    this.name = 'RetryDeadlineError';
    this.attempts = attempts;
  }
}

/**
 * Connects to a dependency at start, again and again until it answers: a service started
 * before NATS (or while it restarts) waits, live and not ready, instead of exiting and
 * being restarted in a loop. Logs the first failure, then every tenth, naming `what`.
 * With `deadlineAt` (a one-shot command such as `wirehook migrate`) the wait is bounded.
 * An error marked `retryable: false` (NATS refusing the credentials) ends the wait at once.
 * @throws RetryDeadlineError once `deadlineAt` has passed; StartupError with the message of
 *   an error no retry cures (runService prints it as one line).
 */
export async function connectWithRetry<T>(
  what: string,
  connect: () => Promise<T>,
  logger: Pick<Logger, 'warn' | 'info'>,
  options: RetryOptions<T> = {},
): Promise<T> {
  const { backoffMs = CONNECT_BACKOFF_MS, deadlineAt = Number.POSITIVE_INFINITY, onRetry, signal, discard } = options;
  // The deadline on the monotonic clock the timers use, read once: a wall clock that steps
  // (NTP), or that a timer beats by a millisecond, moves neither the bound nor the count.
  const started = performance.now();
  const deadline = started + (deadlineAt - Date.now());
  for (let attempt = 1; ; attempt++) {
    try {
      const connected = await beforeDeadline(unlessAborted(connect(), signal, discard), deadline);
      if (attempt > 1) logger.info({ attempts: attempt }, `${what} answered; starting`);
      return connected;
    } catch (err) {
      signal?.throwIfAborted();
      if ((err as { retryable?: unknown } | undefined)?.retryable === false) throw new StartupError((err as Error).message, { cause: err });
      const left = deadline - performance.now();
      // The attempt a deadline cut off is the last, even when its timer fired a hair early.
      if (left <= 0 || err instanceof DeadlineReached) throw new RetryDeadlineError(what, attempt, err);
      const waitMs = Math.min(backoffMs[Math.min(attempt - 1, backoffMs.length - 1)]!, left);
      if (attempt === 1 || attempt % 10 === 0) {
        logger.warn({ err, attempts: attempt, retryInMs: waitMs }, `${what} unreachable at start; not ready, retrying (${errorText(err)})`);
      }
      onRetry?.({ attempt, elapsedMs: Math.round(performance.now() - started), waitMs, error: err });
      await pause(waitMs, signal);
    }
  }
}

/**
 * A service's NATS connection at start: `options` (natsBusOptions of its config, read as it
 * builds, so that a NATS_* problem fails the build) handed to `connect` (NatsBus.connect with
 * the service's own name), retried as connectWithRetry does until it answers or `signal` (the
 * process asked to stop) aborts; a bus connected after that is closed.
 */
export function connectNatsAtStart<B extends { close(): unknown }>(
  options: NatsConnectOptions,
  connect: (options: NatsConnectOptions) => Promise<B>,
  logger: Pick<Logger, 'warn' | 'info'>,
  signal: AbortSignal | undefined,
): Promise<B> {
  return connectWithRetry(`NATS (${options.servers})`, () => connect(options), logger, { signal, discard: (bus) => bus.close() });
}

/** Waits `ms`, or rejects with `signal`'s reason once it aborts (at once, if it has): the timer cleared either way. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const aborted = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

/** `attempt`, or a rejection when `deadline` (performance.now()) comes first (a connect that hangs counts as failed). */
function beforeDeadline<T>(attempt: Promise<T>, deadline: number): Promise<T> {
  return within(attempt, deadline - performance.now(), () => new DeadlineReached());
}

/** An attempt still running when the deadline came. */
class DeadlineReached extends Error {
  constructor() {
    super('no answer before the deadline');
  }
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

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
