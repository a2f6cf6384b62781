// The portal's message list: the /v1 rows, each with its deliveries counted by status, so the
// page can say "Delivered 1 · Failed 1" or "no endpoint matched".
import { claimRef, type DeliveryJob } from '@wirehook/store';
import { newId, type ConsumerId, type DeliveryId, type DeliveryStatus, type Tenant } from '@wirehook/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PortalScene } from '../testing/portal-scene.ts';

let scene: PortalScene;
beforeAll(async () => {
  scene = await PortalScene.start();
});
afterAll(() => scene.close());

/** A message to `externalId`'s consumer: one delivery per endpoint of it. */
async function send(t: Tenant, externalId: string): Promise<{ id: string; deliveryIds: DeliveryId[] }> {
  scene.clock.advance(1_000);
  const now = scene.clock.now();
  const created = await scene.store.messages.create(t, {
    id: newId('message', scene.clock),
    eventType: 'invoice.paid',
    payload: '{}',
    createdAt: now,
    consumerExternalId: externalId,
    newConsumerId: newId('consumer', scene.clock) as ConsumerId,
    idempotencyKey: null,
    idempotencySince: now,
    counters: [],
  });
  return { id: created.message.id, deliveryIds: created.deliveryIds };
}

/** Claims the delivery and records one attempt ending it in `status`. */
async function finish(id: DeliveryId, status: Extract<DeliveryStatus, 'success' | 'failed'>): Promise<void> {
  const now = scene.clock.now();
  const job = (await scene.store.deliveries.claim(id, now, now + 60_000)) as DeliveryJob;
  await scene.store.deliveries.complete(claimRef(job), {
    attempt: {
      id: newId('attempt', scene.clock),
      deliveryId: id,
      endpointId: job.delivery.endpointId,
      at: now,
      responseStatus: status === 'success' ? 200 : 500,
      responseHead: status === 'success' ? 'HTTP/1.1 200 OK' : 'HTTP/1.1 500 Internal Server Error',
      durationMs: 5,
      error: null,
      via: 'direct',
      sourceIp: '203.0.113.7',
      url: job.endpoint.url,
    },
    status,
    nextAttemptAt: null,
    countsTowardPolicy: true,
    endpoint: { succeeded: status === 'success' },
  });
}

it('adds delivery_statuses to each row: counts by status, {} for a message no endpoint took', async () => {
  const { t } = await scene.tenant();
  const consumer = await scene.consumer(t, 'acme');
  const { token } = await scene.link(t, consumer);
  const none = await send(t, 'acme');
  expect(none.deliveryIds).toEqual([]);
  await scene.endpoint(token, consumer, '/a');
  await scene.endpoint(token, consumer, '/b');
  const split = await send(t, 'acme');
  const waiting = await send(t, 'acme');
  await finish(split.deliveryIds[0]!, 'success');
  await finish(split.deliveryIds[1]!, 'failed');

  const list = await scene.api(token, 'GET', '/messages');
  expect(list.status).toBe(200);
  const statuses = Object.fromEntries(list.body.items.map((row: { id: string; delivery_statuses: unknown }) => [row.id, row.delivery_statuses]));
  expect(statuses).toEqual({ [none.id]: {}, [split.id]: { success: 1, failed: 1 }, [waiting.id]: { pending: 2 } });
  // The rest of each row is the /v1 list's, newest first.
  expect(list.body.items.map((row: { id: string }) => row.id)).toEqual([waiting.id, split.id, none.id]);
  expect(list.body.items[1]).toMatchObject({ id: split.id, event_type: 'invoice.paid', endpoint_url: 'https://hooks.example.com/a' });
});

it('leaves an error answer as the /v1 route gives it', async () => {
  const { t } = await scene.tenant();
  const { token } = await scene.link(t, await scene.consumer(t));
  const bad = await scene.api(token, 'GET', '/messages?limit=0');
  expect(bad.status).toBe(422);
  expect(bad.body).toEqual({ error: 'invalid', message: expect.stringContaining('limit') });
});
