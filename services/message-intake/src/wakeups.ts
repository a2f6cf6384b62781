import { DISPATCH_SUBJECT, encodeDispatchJob, PublishQueueFullError, type Bus } from '@wirehook/bus';
import type { Clock, DeliveryId } from '@wirehook/core';
import { OutageLog, type Logger } from '@wirehook/platform';
import { Counter, type Registry } from 'prom-client';

/** How long a send waits for its wake-ups before it answers anyway (below the gateway's gRPC deadline). */
export const DEFAULT_WAKEUP_WAIT_MS = 1_000;

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
  readonly #outage: OutageLog;

  constructor(options: WakeupsOptions) {
    this.#o = { ...options, waitMs: options.waitMs ?? DEFAULT_WAKEUP_WAIT_MS };
    this.#missed = new Counter({
      name: 'wirehook_intake_wakeups_missed_total',
      help: 'Dispatch wake-ups that could not be published (the sweeper delivers those messages later)',
      registers: options.registry ? [options.registry] : [],
    });
    this.#outage = new OutageLog({
      logger: options.logger,
      clock: options.clock,
      what: 'NATS unreachable',
      deferred: 'wake-ups deferred to the sweeper',
      consequence: 'could not publish dispatch wake-ups; messages are accepted, the sweeper delivers them',
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
    if (failures.length > 0) this.#missed.inc(failures.length);
    // Refused because too many wait (NATS answers, slower than sends come): missed, not an outage.
    const lost = failures.filter((f) => !(f.reason instanceof PublishQueueFullError));
    if (lost.length > 0) this.#outage.failed(lost[0]!.reason, lost.length);
    else if (failures.length === 0) this.#outage.succeeded();
  }
}
