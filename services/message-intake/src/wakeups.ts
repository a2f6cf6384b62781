import { DISPATCH_SUBJECT, encodeDispatchJob, type Bus } from '@wirehook/bus';
import type { Clock, DeliveryId } from '@wirehook/core';
import type { Logger } from '@wirehook/platform';
import { Counter, type Registry } from 'prom-client';

/** How long a send waits for its wake-ups before it answers anyway (below the gateway's gRPC deadline). */
export const DEFAULT_WAKEUP_WAIT_MS = 1_000;
/** While publishes fail, one summary line per this long instead of one per request. */
const SUMMARY_EVERY_MS = 30_000;

export interface WakeupsOptions {
  bus: Bus;
  clock: Clock;
  logger: Logger;
  /** Where `wirehook_intake_wakeups_missed_total` is registered. */
  registry?: Registry;
  waitMs?: number;
}

/**
 * Wakes the dispatchers for new due deliveries. A wake-up is a hint: the message is already
 * committed, and the dispatchers' sweeper finds due deliveries in the store. So a send waits
 * for its wake-ups at most `waitMs` and never fails for them: while NATS is down, messages
 * are still accepted (202) and delivered once the sweeper sees them. Missed wake-ups are
 * counted; the log gets the first failure, then one summary every 30 s, then the recovery.
 */
export class Wakeups {
  readonly #o: Required<Omit<WakeupsOptions, 'registry'>>;
  readonly #missed: Counter;
  /** The outage being summarised: since when, how many missed, when it was last logged. */
  #outage: { since: number; missed: number; loggedAt: number } | undefined;

  constructor(options: WakeupsOptions) {
    this.#o = { ...options, waitMs: options.waitMs ?? DEFAULT_WAKEUP_WAIT_MS };
    this.#missed = new Counter({
      name: 'wirehook_intake_wakeups_missed_total',
      help: 'Dispatch wake-ups that could not be published (the sweeper delivers those messages later)',
      registers: options.registry ? [options.registry] : [],
    });
  }

  /** Publishes a wake-up per id; resolves when all are out, or after `waitMs`. Never rejects. */
  async publish(ids: readonly DeliveryId[]): Promise<void> {
    if (ids.length === 0) return;
    // No msgId: a claim takes a delivery once however often it is woken (see the bus port).
    const all = Promise.allSettled(ids.map((id) => this.#o.bus.publish(DISPATCH_SUBJECT, encodeDispatchJob(id))));
    const settled = all.then((results) => this.#account(results));
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#o.waitMs)));
    await Promise.race([settled, waited]);
    clearTimeout(timer);
  }

  #account(results: PromiseSettledResult<void>[]): void {
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    const now = this.#o.clock.now();
    if (failures.length === 0) {
      if (this.#outage) {
        this.#o.logger.info(
          { missed: this.#outage.missed, seconds: Math.round((now - this.#outage.since) / 1000) },
          'dispatch wake-ups publish again; the sweeper delivers what was missed',
        );
        this.#outage = undefined;
      }
      return;
    }
    this.#missed.inc(failures.length);
    if (this.#outage === undefined) {
      this.#outage = { since: now, missed: failures.length, loggedAt: now };
      this.#o.logger.warn({ err: failures[0]!.reason }, 'could not publish dispatch wake-ups (NATS); messages are accepted, the sweeper delivers them');
      return;
    }
    this.#outage.missed += failures.length;
    if (now - this.#outage.loggedAt >= SUMMARY_EVERY_MS) {
      this.#outage.loggedAt = now;
      const seconds = Math.round((now - this.#outage.since) / 1000);
      this.#o.logger.warn(
        { missed: this.#outage.missed, seconds },
        `NATS unreachable for ${seconds} s, ${this.#outage.missed.toLocaleString('en')} wake-ups deferred to the sweeper`,
      );
    }
  }
}
