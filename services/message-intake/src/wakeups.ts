import { DISPATCH_SUBJECT, dispatchJobHeaders, encodeDispatchJob, PublishQueueFullError, type Bus } from '@wirehook/bus';
import type { Clock, DeliveryId, Tenant } from '@wirehook/core';
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
  readonly #behind: OutageLog;

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
    this.#behind = new OutageLog({
      logger: options.logger,
      clock: options.clock,
      what: 'NATS slower than the sends',
      deferred: 'wake-ups deferred to the sweeper',
      consequence: 'too many dispatch wake-ups wait for NATS; the sweeper delivers the messages of those refused',
    });
  }

  /** Publishes a wake-up per id (of `tenant`'s); resolves when all are out, or after `waitMs`. Never rejects. */
  async publish(ids: readonly DeliveryId[], tenant: Tenant): Promise<void> {
    if (ids.length === 0) return;
    // No msgId: a claim takes a delivery once however often it is woken (see the bus port).
    const headers = dispatchJobHeaders(tenant);
    const all = Promise.allSettled(ids.map((id) => this.#o.bus.publish(DISPATCH_SUBJECT, encodeDispatchJob(id), { headers })));
    const settled = all.then((results) => this.#account(results));
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#o.waitMs)));
    await Promise.race([settled, waited]);
    clearTimeout(timer);
  }

  #account(results: PromiseSettledResult<void>[]): void {
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failures.length === 0) {
      this.#outage.succeeded();
      this.#behind.succeeded();
      return;
    }
    this.#missed.inc(failures.length);
    // Refused because too many wait: an outage when NATS failed some too (they count in its
    // summary), else NATS answers slower than sends come, said apart.
    const unreachable = failures.find((f) => !(f.reason instanceof PublishQueueFullError));
    if (unreachable !== undefined) this.#outage.failed(unreachable.reason, failures.length);
    else this.#behind.failed(failures[0]!.reason, failures.length);
  }
}
