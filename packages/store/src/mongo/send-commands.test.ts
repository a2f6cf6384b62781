// The commands a live send (and a completion) waits for (message-create.ts createMessage; docs/operations.md, "Commands a send
// waits for"), without a server: stand-in collections that log each command in order. The tenants' `$min`
// is held, so the send must answer before it (noteDue's tenantsSoon).
import { newId } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { UsageCounter } from '../ports/message-port.ts';
import type { MongoConnection } from './connection.ts';
import { tenantsLowered } from './due-queue.ts';
import { completeDelivery } from './delivery-complete.ts';
import { flushRollups } from './endpoint-stats-repo.ts';
import { createMessage } from './message-create.ts';
import { monthOf } from './months.ts';
import { byNextTurn } from '../../test/next-turn.ts';

const NOW = Date.UTC(2026, 11, 2);
const MONTH: UsageCounter = { key: 'live:org_1:2026-12', limit: 1_000, increment: true, expiresAt: Date.UTC(2027, 1, 1) };

function standIn() {
  const log: string[] = [];
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const logged =
    <T>(name: string, answer: T) =>
    async () => (log.push(name), answer);
  const bucket = {
    month: monthOf(NOW),
    messages: { insertOne: logged('messages.insertOne', {}) },
    messageBodies: { insertOne: logged('messageBodies.insertOne', {}) },
    deliveries: { insertMany: logged('deliveries.insertMany', {}) },
  };
  const conn = {
    months: async () => [monthOf(NOW)],
    bucketMonthOf: () => monthOf(NOW),
    bucket: () => bucket,
    bucketOf: () => bucket,
    transaction: async <T>(fn: (session: unknown) => Promise<T>) => {
      const result = await fn({});
      log.push('commit');
      return result;
    },
    counters: {
      updateOne: logged('counters.updateOne', { matchedCount: 1 }),
      find: () => ({ toArray: async () => (log.push('counters.find'), [{ _id: MONTH.key, value: 1, expiresAt: new Date(MONTH.expiresAt) }]) }),
    },
    consumers: { findOne: logged('consumers.findOne', { _id: 'con_1' }) },
    endpoints: { find: () => ({ toArray: async () => (log.push('endpoints.find'), [{ _id: 'ep_1', url: 'https://example.test/hook', status: 'active' }]) }) },
    dueEndpoints: { bulkWrite: logged('dueEndpoints.bulkWrite', { modifiedCount: 0, upsertedCount: 1 }) },
    dueTenants: { bulkWrite: async () => (log.push('dueTenants.bulkWrite'), await held, { modifiedCount: 0, upsertedCount: 1 }) },
    // A completion's rollups, flushed by the test (not by a timer firing in another test file's time).
    endpointRollups: { bulkWrite: async () => ({}) },
  } as unknown as MongoConnection;
  return { conn, log, release };
}

describe('a live send’s commands (MongoDB)', () => {
  it('nine before its answer — its count taken before the transaction, none of its counters read in it — and the tenant’s $min after', async () => {
    const { conn, log, release } = standIn();
    const input = {
      id: newId('message', { now: () => NOW }),
      eventType: 'invoice.paid',
      payload: '{}',
      createdAt: NOW,
      consumerExternalId: 'acme',
      newConsumerId: 'con_new',
      idempotencyKey: null,
      idempotencySince: NOW - 86_400_000,
      counters: [MONTH],
    };
    const sending = createMessage(conn, { orgId: 'org_1', env: 'live' } as never, input as never);
    // Every stand-in answers within the microtasks: a send still going by the next turn waits for the held $min.
    const created = await byNextTurn(sending);
    expect(created).not.toBe('waiting');
    expect((created as Awaited<typeof sending>).counters).toEqual({ [MONTH.key]: 1 });
    expect(log).toEqual([
      'counters.updateOne',
      'counters.find',
      'consumers.findOne',
      'endpoints.find',
      'messages.insertOne',
      'messageBodies.insertOne',
      'deliveries.insertMany',
      'commit',
      'dueEndpoints.bulkWrite',
      // Sent, not answered: the send answered without waiting for it.
      'dueTenants.bulkWrite',
    ]);
    release();
    await tenantsLowered(conn);
  });
});

describe('a completion’s commands (MongoDB)', () => {
  it('a retry answers once its due entry is written, before its tenant’s $min', async () => {
    const { conn, log, release } = standIn();
    const deliveryId = newId('delivery', { now: () => NOW });
    const messageId = newId('message', { now: () => NOW });
    const before = { messageId, status: 'pending', resend: false, endpointId: 'ep_1', orderingKey: null, attemptCount: 0 };
    Object.assign(conn.endpoints, { findOne: async () => (log.push('endpoints.findOne'), { status: 'active', failingSince: NOW - 1_000 }) });
    Object.assign(conn.bucketOf(deliveryId), {
      deliveries: {
        findOneAndUpdate: async () => (log.push('deliveries.findOneAndUpdate'), before),
        updateOne: async () => (log.push('deliveries.updateOne'), { matchedCount: 1 }),
      },
      attempts: { insertOne: async () => (log.push('attempts.insertOne'), {}) },
      messages: { updateOne: async () => (log.push('messages.updateOne'), { matchedCount: 1 }) },
    });
    const attempt = {
      id: newId('attempt', { now: () => NOW }),
      deliveryId,
      endpointId: 'ep_1',
      at: NOW,
      responseStatus: 500,
      responseHead: null,
      durationMs: 12,
      error: null,
      via: 'direct',
      sourceIp: null,
      url: 'https://example.test/hook',
    };
    const claim = { tenant: { orgId: 'org_1', env: 'live' }, deliveryId, endpointId: 'ep_1', leaseToken: 1 };
    const outcome = { attempt, status: 'retrying', nextAttemptAt: NOW + 5_000, countsTowardPolicy: true, endpoint: { succeeded: false } };
    const completing = completeDelivery(conn, claim as never, outcome as never);
    const completed = await byNextTurn(completing);
    expect(completed).toMatchObject({ applied: true, endpointDisabled: false });
    expect(log).toEqual([
      'endpoints.findOne',
      'deliveries.findOneAndUpdate',
      'attempts.insertOne',
      'commit',
      'dueEndpoints.bulkWrite',
      'dueTenants.bulkWrite',
      // The message's status follows the due entry without waiting for the tenant's bound.
      'messages.updateOne',
      'deliveries.updateOne',
    ]);
    release();
    await tenantsLowered(conn);
    await flushRollups(conn);
  });
});
