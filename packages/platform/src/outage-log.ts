import { type Clock, thousands } from '@wirehook/core';
import type { Logger } from 'pino';

/** While something keeps failing, one summary line per this long. */
export const OUTAGE_SUMMARY_EVERY_MS = 30_000;

export interface OutageLogOptions {
  logger: Logger;
  clock: Clock;
  /** What fails, as the summary says it: `NATS unreachable`, `store calls failing`. */
  what: string;
  /** What is put off meanwhile, counted: `wake-ups deferred to the sweeper`. */
  deferred: string;
  /** What the service does about it, on the first line: `messages are accepted, the sweeper delivers them`. */
  consequence: string;
  summaryEveryMs?: number;
}

/**
 * The log of one kind of failure that may repeat thousands of times a second (a dependency
 * down): the first failure with its error, then one summary every 30 s ("NATS unreachable
 * for 40 s, 1,204 wake-ups deferred to the sweeper"), then one line when it works again.
 * A line per failure would bury everything else in the log during an outage.
 */
export class OutageLog {
  readonly #o: OutageLogOptions & { summaryEveryMs: number };
  #outage: { since: number; count: number; loggedAt: number } | undefined;

  constructor(options: OutageLogOptions) {
    this.#o = { ...options, summaryEveryMs: options.summaryEveryMs ?? OUTAGE_SUMMARY_EVERY_MS };
  }

  /** Whether an outage is going on (a failure since the last success). */
  get failing(): boolean {
    return this.#outage !== undefined;
  }

  /** `count` more failures; `err` is logged when it is the first. */
  failed(err: unknown, count = 1, fields: Record<string, unknown> = {}): void {
    const now = this.#o.clock.now();
    if (this.#outage === undefined) {
      this.#outage = { since: now, count, loggedAt: now };
      this.#o.logger.warn({ err, ...fields }, `${this.#o.what}: ${this.#o.consequence}`);
      return;
    }
    this.#outage.count += count;
    if (now - this.#outage.loggedAt >= this.#o.summaryEveryMs) {
      this.#outage.loggedAt = now;
      const seconds = Math.round((now - this.#outage.since) / 1000);
      this.#o.logger.warn(
        { count: this.#outage.count, seconds, err },
        `${this.#o.what} for ${seconds} s, ${thousands(this.#outage.count)} ${this.#o.deferred}`,
      );
    }
  }

  /** It worked: ends the outage, with one line saying how long it lasted. */
  succeeded(): void {
    if (this.#outage === undefined) return;
    const seconds = Math.round((this.#o.clock.now() - this.#outage.since) / 1000);
    this.#o.logger.info(
      { count: this.#outage.count, seconds },
      `${this.#o.what} no more, after ${seconds} s: ${thousands(this.#outage.count)} ${this.#o.deferred}`,
    );
    this.#outage = undefined;
  }
}
