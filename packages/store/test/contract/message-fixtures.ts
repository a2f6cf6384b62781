import { newId, type Attempt, type Consumer, type Delivery, type DeliveryId, type Endpoint, type Tenant } from '@wirehook/core';
import { expect } from 'vitest';
import type { AttemptOutcome, DeliveryJob } from '../../src/ports/delivery-port.ts';
import type { CreatedMessage, NewMessage } from '../../src/ports/message-port.ts';
import type { Fixtures } from './fixtures.ts';

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** How long the contract's claims hold their lease. */
export const LEASE_MS = MINUTE;

/** A tenant with one consumer and one active endpoint taking every event type. */
export interface Scene {
  t: Tenant;
  consumer: Consumer;
  endpoint: Endpoint;
}

/** Builders for the message and delivery contracts, on top of the store fixtures. */
export class MessageFixtures {
  readonly f: Fixtures;

  constructor(f: Fixtures) {
    this.f = f;
  }

  /** A send of `invoice.paid` to `customer-1`, created now, without key or counters, with `overrides`. */
  newMessage(overrides: Partial<NewMessage> = {}): NewMessage {
    const clock = this.f.clock;
    clock.advance(SECOND);
    const createdAt = overrides.createdAt ?? clock.now();
    return {
      id: newId('message', { now: () => createdAt }), // stamped as its deliveries are (newDeliveryId): one month
      eventType: 'invoice.paid',
      payload: '{"invoice":"in_1","amount":4200}',
      createdAt,
      consumerExternalId: 'customer-1',
      newConsumerId: newId('consumer', clock),
      idempotencyKey: null,
      idempotencySince: createdAt - DAY,
      counters: [],
      ...overrides,
    };
  }

  async send(t: Tenant, overrides: Partial<NewMessage> = {}): Promise<CreatedMessage> {
    return this.f.store.messages.create(t, this.newMessage(overrides));
  }

  /** Stores an endpoint with no failure history that takes every event type, with `overrides`. */
  async hook(t: Tenant, consumer: Consumer, overrides: Partial<Endpoint> = {}): Promise<Endpoint> {
    return this.f.createEndpoint(t, consumer.id, { eventTypes: null, failingSince: null, disabledReason: null, ...overrides });
  }

  async scene(): Promise<Scene> {
    const t = await this.f.tenant();
    const consumer = await this.f.consumer(t, 'customer-1');
    return { t, consumer, endpoint: await this.hook(t, consumer) };
  }

  /** Sends one message in a new scene; its single delivery is due now. */
  async sceneWithDelivery(): Promise<Scene & { sent: CreatedMessage; deliveryId: DeliveryId }> {
    const scene = await this.scene();
    const sent = await this.send(scene.t);
    const deliveryId = sent.deliveryIds[0];
    if (deliveryId === undefined) throw new Error('the scene’s message made no delivery');
    return { ...scene, sent, deliveryId };
  }

  /** The delivery's id when `sent` made exactly one delivery. */
  only(sent: CreatedMessage): DeliveryId {
    expect(sent.deliveryIds).toHaveLength(1);
    return sent.deliveryIds[0] as DeliveryId;
  }

  /** Claims `id` at `now` (default: the clock) for LEASE_MS; fails the test when it is not claimable. */
  async claim(id: DeliveryId, now = this.f.clock.now()): Promise<DeliveryJob> {
    const job = await this.f.store.deliveries.claim(id, now, now + LEASE_MS);
    expect(job, `delivery ${id} should be claimable at ${now}`).not.toBeNull();
    return job as DeliveryJob;
  }

  async delivery(t: Tenant, id: DeliveryId): Promise<Delivery> {
    const found = await this.f.store.deliveries.get(t, id);
    expect(found, `delivery ${id}`).not.toBeNull();
    return (found as { delivery: Delivery }).delivery;
  }

  /** An attempt on `delivery` at `at` that got a 500, with `overrides`. */
  attempt(delivery: Delivery, at: number, overrides: Partial<Attempt> = {}): Attempt {
    return {
      id: newId('attempt', this.f.clock),
      deliveryId: delivery.id,
      endpointId: delivery.endpointId,
      at,
      responseStatus: 500,
      responseHead: 'HTTP/1.1 500 Internal Server Error',
      durationMs: 87,
      error: null,
      via: 'direct',
      sourceIp: '203.0.113.7',
      url: 'https://receiver.example/hooks',
      ...overrides,
    };
  }

  /** A 200 at `at`; counts toward the policy unless the delivery was a manual re-send. */
  succeeded(job: DeliveryJob, at: number): AttemptOutcome {
    return {
      attempt: this.attempt(job.delivery, at, { responseStatus: 200, responseHead: 'HTTP/1.1 200 OK' }),
      status: 'success',
      nextAttemptAt: null,
      countsTowardPolicy: !job.delivery.manual,
      endpoint: { succeeded: true },
    };
  }

  /** A 500 at `at`: `retrying` when `nextAttemptAt` is given, else `failed`. */
  failed(job: DeliveryJob, at: number, nextAttemptAt: number | null = null, endpoint: Partial<AttemptOutcome['endpoint']> = {}): AttemptOutcome {
    return {
      attempt: this.attempt(job.delivery, at),
      status: nextAttemptAt === null ? 'failed' : 'retrying',
      nextAttemptAt,
      countsTowardPolicy: !job.delivery.manual,
      endpoint: { succeeded: false, ...endpoint },
    };
  }

  /** The ids `due` lists at `now` among `mine`, in its order (other tests' deliveries share the store). */
  async dueOf(now: number, mine: readonly DeliveryId[]): Promise<DeliveryId[]> {
    const wanted = new Set(mine);
    return (await this.f.store.deliveries.due(now, 100_000, 100_000)).map((d) => d.id).filter((id) => wanted.has(id));
  }
}
