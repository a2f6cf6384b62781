import {
  IDEMPOTENCY_WINDOW_MS,
  ConflictError,
  InvalidError,
  MAX_PAYLOAD_BYTES,
  monthStart,
  usageMonthExpiry,
  newId,
  NotFoundError,
  PLANS,
  TEST_SENDS_PER_DAY,
  thousands,
  TRIAL_SENDS_PER_CONSUMER_PER_DAY,
  utcDay,
  utcMonth,
  type Clock,
  type Delivery,
  type DeliveryId,
  type EndpointId,
  type IntakePort,
  type SendMessageInput,
  type SendMessageResult,
  type Tenant,
} from '@wirehook/core';
import type { Bus } from '@wirehook/bus';
import { Counter, type Registry } from 'prom-client';
import { Wakeups } from './wakeups.ts';
import { withSpan, type Logger } from '@wirehook/platform';
import type { DeliveryJob, Store, UsageCounter } from '@wirehook/store';

const DAY_MS = 24 * 60 * 60 * 1000;
const TRACER = '@wirehook/message-intake';
export interface MessageIntakeDeps {
  store: Store;
  bus: Bus;
  clock: Clock;
  logger: Logger;
  /** Where the intake's metrics are registered (none when absent). */
  registry?: Registry;
  /** How long a send waits for its dispatch wake-ups before answering anyway (default 1 s). */
  wakeupWaitMs?: number;
  /** A dispatcher in this process (embedded mode): new deliveries are claimed for it as they are written. */
  local?: LocalDispatcher;
}

/**
 * A dispatcher in intake's own process. Handing it the deliveries claimed in the message's
 * own transaction spares each delivery a wake-up and a claim transaction; the store stays
 * the truth (they are leased there like any claim, and a lost hand-off is a lease that runs
 * out).
 */
export interface LocalDispatcher {
  /** How many deliveries it can start now, and the lease to claim them with. */
  room(now: number): { max: number; leaseUntil: number };
  /** Starts the sends of deliveries claimed for it; what it cannot start it gives back to the store. */
  take(jobs: readonly DeliveryJob[]): void;
}

/**
 * Accepting messages: one store transaction writes the message, its deliveries and the
 * usage counters; then each delivery is published to the dispatchers. A lost publish costs
 * only latency: the dispatcher's sweeper finds due deliveries in the store.
 */
export class MessageIntake implements IntakePort {
  readonly #deps: MessageIntakeDeps;
  readonly #wakeups: Wakeups;
  readonly #messages: Counter<'outcome'>;

  constructor(deps: MessageIntakeDeps) {
    this.#deps = deps;
    this.#wakeups = new Wakeups({ bus: deps.bus, clock: deps.clock, logger: deps.logger, registry: deps.registry, waitMs: deps.wakeupWaitMs });
    this.#messages = new Counter({
      name: 'wirehook_intake_messages_total',
      help:
        'Sends by outcome: accepted (written), replayed (an earlier message of the same Idempotency-Key), ' +
        'refused (plan_limit, invalid), failed (anything else)',
      labelNames: ['outcome'],
      registers: deps.registry ? [deps.registry] : [],
    });
  }

  /**
   * Accepts one message, in a `MessageIntake.send` span (child of the caller's, e.g. the gRPC
   * server span); its dispatch jobs are published inside it, so they carry its trace.
   */
  send(input: SendMessageInput): Promise<SendMessageResult> {
    const attributes = {
      'wirehook.org_id': input.tenant.orgId,
      'wirehook.environment': input.tenant.env,
      'wirehook.event_type': input.body.event_type,
    };
    return withSpan(TRACER, 'MessageIntake.send', attributes, async (span) => {
      let sent: { result: SendMessageResult; created: boolean };
      try {
        sent = await this.#send(input);
      } catch (err) {
        const code = (err as { code?: string }).code;
        this.#messages.inc({ outcome: code === 'plan_limit' || code === 'invalid' ? `refused_${code}` : 'failed' });
        throw err;
      }
      this.#messages.inc({ outcome: sent.created ? 'accepted' : 'replayed' });
      const { result } = sent;
      span.setAttributes({ 'wirehook.message_id': result.id, 'wirehook.deliveries': result.deliveries });
      return result;
    });
  }

  async #send({ tenant, org, body, idempotencyKey, trialEndpointId }: SendMessageInput): Promise<{ result: SendMessageResult; created: boolean }> {
    const { store, clock } = this.#deps;
    const payload = JSON.stringify(body.payload);
    const payloadBytes = Buffer.byteLength(payload);
    if (payloadBytes > MAX_PAYLOAD_BYTES) {
      throw new InvalidError(`payload: is ${thousands(payloadBytes)} bytes of JSON; at most ${thousands(MAX_PAYLOAD_BYTES)} (1 MB)`);
    }
    const now = clock.now();
    const { local } = this.#deps;
    const room = local?.room(now);
    const created = await store.messages.create(tenant, {
      // Stamped with `now`, as its deliveries are (newDeliveryId): a message and its deliveries
      // share one month, which a store keeping months apart (MongoDB) files them under.
      id: newId('message', { now: () => now }),
      eventType: body.event_type,
      payload,
      createdAt: now,
      consumerExternalId: body.consumer,
      newConsumerId: newId('consumer', clock),
      idempotencyKey,
      idempotencySince: now - IDEMPOTENCY_WINDOW_MS,
      orderingKey: body.ordering_key ?? null,
      counters: trialEndpointId === undefined ? usageCounters(tenant, org.plan, now) : trialCounters(tenant, now, body.consumer),
      ...(trialEndpointId === undefined ? {} : { onlyEndpointId: trialEndpointId }),
      ...(room !== undefined && room.max > 0 ? { claim: room } : {}),
    });
    if (created.created) {
      if (created.claimed !== undefined) this.#handOver(created.claimed);
      // Held deliveries (paused endpoint) are not woken: resuming makes them due, and the sweeper finds them.
      await this.#publish(created.dueDeliveryIds, tenant);
    }
    return {
      result: {
        id: created.message.id,
        deliveries: created.deliveryIds.length,
        usageMonth: created.counters[liveMonthKey(tenant, now)] ?? 0,
        replayed: !created.created,
      },
      created: created.created,
    };
  }

  /** A manual retry of one delivery, in a `MessageIntake.retryDelivery` span its dispatch job carries. */
  retryDelivery(tenant: Tenant, id: DeliveryId): Promise<Delivery> {
    const attributes = { 'wirehook.org_id': tenant.orgId, 'wirehook.environment': tenant.env, 'wirehook.delivery_id': id };
    return withSpan(TRACER, 'MessageIntake.retryDelivery', attributes, () => this.#retryDelivery(tenant, id));
  }

  async #retryDelivery(tenant: Tenant, id: DeliveryId): Promise<Delivery> {
    const { store, clock } = this.#deps;
    // A quick answer for the common refusals; the store checks the endpoint again in the same
    // step as the reopening (retryNow throws ConflictError), so a delete cannot come between.
    const found = await store.deliveries.get(tenant, id);
    if (!found) throw new NotFoundError(`delivery ${id} not found`);
    if (found.endpointStatus === null) throw new ConflictError(`the endpoint of delivery ${id} was deleted`);
    if (found.endpointStatus !== 'active') {
      throw new ConflictError(`the endpoint of delivery ${id} is ${found.endpointStatus}; resume it first`);
    }
    const delivery = await store.deliveries.retryNow(tenant, id, clock.now());
    if (!delivery) throw new NotFoundError(`delivery ${id} not found`);
    await this.#publish([delivery.id], tenant);
    return delivery;
  }

  async releaseHeld(tenant: Tenant, endpointId: EndpointId): Promise<number> {
    const now = this.#deps.clock.now();
    // "Held messages of this month and last month are sent together."
    const released = await this.#deps.store.deliveries.releaseHeld(tenant, endpointId, monthStart(now, 1), now);
    this.#deps.logger.info({ endpointId, released }, 'released held deliveries');
    return released;
  }

  /**
   * Hands the claimed jobs to the local dispatcher. The message is committed by now: a
   * dispatcher that throws must not turn its 202 into a 500 (a retry without a key would send
   * it twice); its jobs' leases run out and the sweeper sends them.
   */
  #handOver(jobs: DeliveryJob[]): void {
    try {
      this.#deps.local?.take(jobs);
    } catch (err) {
      this.#deps.logger.error({ err, deliveryIds: jobs.map((job) => job.delivery.id) }, 'hand-off to the dispatcher failed; sent once their lease runs out');
    }
  }

  #publish(ids: DeliveryId[], tenant: Tenant): Promise<void> {
    return this.#wakeups.publish(ids, tenant);
  }
}

function liveMonthKey(tenant: Tenant, now: number): string {
  return `live:${tenant.orgId}:${utcMonth(now)}`;
}

// The limits' refusals, made once: they name only the plans' constants.
const MONTHLY_LIMIT_MESSAGES = Object.fromEntries(
  Object.entries(PLANS).map(([plan, { monthlyMessages }]) => [plan, `the ${plan} plan's ${thousands(monthlyMessages)} live messages this month are used up`]),
) as Record<keyof typeof PLANS, string>;
const TEST_LIMIT_MESSAGE = `test and trial sends are limited to ${thousands(TEST_SENDS_PER_DAY)} per environment per UTC day`;
const TRIAL_CONSUMER_LIMIT_MESSAGE = `trial sends are limited to ${TRIAL_SENDS_PER_CONSUMER_PER_DAY} per customer per UTC day`;

/** The counters one send touches: live → the org's month; test → the environment's day (and a read of the month). */
export function usageCounters(tenant: Tenant, plan: keyof typeof PLANS, now: number): UsageCounter[] {
  const month: UsageCounter = {
    key: liveMonthKey(tenant, now),
    limit: tenant.env === 'live' ? PLANS[plan].monthlyMessages : null,
    increment: tenant.env === 'live',
    limitMessage: MONTHLY_LIMIT_MESSAGES[plan],
    expiresAt: usageMonthExpiry(now),
  };
  if (tenant.env === 'live') return [month];
  return [month, testAndTrialDay(tenant, now)];
}

/**
 * A trial send (the portal) is not billed: it counts toward the environment's test-and-trial
 * sends of the UTC day (the test environment's messages share that counter) and toward its
 * consumer's trial sends of the UTC day (100: one customer's links cannot spend the sender's
 * test sends), and reads the month for x-usage-month. `consumer` is the external id.
 */
export function trialCounters(tenant: Tenant, now: number, consumer: string): UsageCounter[] {
  const month = usageCounters(tenant, 'free', now)[0]!;
  const day = testAndTrialDay(tenant, now);
  const ofConsumer: UsageCounter = {
    ...day,
    key: `trial-consumer:${tenant.env}:${tenant.orgId}:${utcDay(now)}:${consumer}`,
    limit: TRIAL_SENDS_PER_CONSUMER_PER_DAY,
    limitMessage: TRIAL_CONSUMER_LIMIT_MESSAGE,
  };
  return [{ ...month, increment: false, limit: null }, day, ofConsumer];
}

function testAndTrialDay(tenant: Tenant, now: number): UsageCounter {
  const day = utcDay(now);
  return {
    // The test environment's key is the one its messages always used.
    key: tenant.env === 'test' ? `test:${tenant.orgId}:${day}` : `trial:live:${tenant.orgId}:${day}`,
    limit: TEST_SENDS_PER_DAY,
    increment: true,
    limitMessage: TEST_LIMIT_MESSAGE,
    expiresAt: Date.parse(`${day}T00:00:00Z`) + 2 * DAY_MS,
  };
}
