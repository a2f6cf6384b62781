// The delivery-thread floor's delivery thread (bench/floor/threaded-floor-process.ts with
// FLOOR_DELIVERY_THREAD=1): the floor's send-and-record wholly off the API's thread. Deliveries
// come from the store thread once their message is committed, are built, signed and POSTed here,
// and each attempt goes back to the store thread over the same link — the main thread takes no
// part in a delivery after its 202. The question it answers (issue 46): what embedded mode's
// threads would cost if the dispatcher's loop ran on one thread fed by the store writer.
import { createSecretKey, type KeyObject } from 'node:crypto';
import { type MessagePort, workerData } from 'node:worker_threads';
import { standardWebhookHeaders, webhookBody } from '@wirehook/core';
import type { UndiciPool } from '../http/undici.ts';
import { type CloseCall, type FloorJob, FloorLink, type RecordCall } from './floor-link.ts';
import { endpointPool, type FloorReceiver, postSigned, sendAndRecord } from './floor-parts.ts';
import { serveCalls } from './floor-thread.ts';

/** Where an endpoint's deliveries go. */
interface Target {
  pool: UndiciPool;
  key: KeyObject;
  path: string;
}

const { link: port, inFlight, ...receiver } = workerData as FloorReceiver & { link: MessagePort; inFlight: number };
const targets = new Map<string, Target>();
/** Endpoints deleted (before or after their first delivery came): their deliveries fail unsent. */
const removed = new Set<string>();

/** Keeps an endpoint's target from its first delivery, unless it was deleted first. */
function keepTarget({ endpointId, to }: FloorJob): void {
  if (to === undefined || targets.has(endpointId) || removed.has(endpointId)) return;
  targets.set(endpointId, { pool: endpointPool(to.url, receiver), key: createSecretKey(to.secret), path: to.path });
}

type Delivery = { id: string; endpointId: string; messageId: string; body: string; attempts: number };
const link: FloorLink<never, RecordCall, unknown, FloorJob> = new FloorLink(port, 'the link to the store thread', {
  pushed: (job) => {
    keepTarget(job);
    const body = webhookBody(job.eventType, job.createdAt, job.payloadJson);
    enqueue({ id: job.id, endpointId: job.endpointId, messageId: job.messageId, body, attempts: 0 });
  },
});
const enqueue = sendAndRecord<Delivery, Target>(inFlight, {
  target: ({ endpointId }) => (removed.has(endpointId) ? null : (targets.get(endpointId) ?? null)),
  post: (to, delivery, now) => postSigned(to.pool, to.path, standardWebhookHeaders([to.key], delivery.messageId, now, delivery.body), delivery.body),
  record: async (delivery, attempt) => void (await link.call({ op: 'record', deliveryId: delivery.id, attempt })),
  fail: async (delivery, at) => void (await link.call({ op: 'fail', deliveryId: delivery.id, at })),
});

serveCalls<CloseCall, null>(async ({ endpointId }) => {
  removed.add(endpointId);
  await targets.get(endpointId)?.pool.close();
  return null;
});
