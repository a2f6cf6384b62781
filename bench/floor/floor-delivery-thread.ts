// The delivery-thread floor's delivery thread (bench/floor/threaded-floor-process.ts with
// FLOOR_DELIVERY_THREAD=1): the floor's send-and-record wholly off the API's thread. Deliveries
// come from the store thread once their message is committed, are signed and POSTed here, and
// each attempt goes back to the store thread over the same link — the main thread takes no part
// in a delivery after its 202. The question it answers (issue 46): what embedded mode's threads
// would cost if the dispatcher's loop ran on one thread fed by the store writer.
import { createSecretKey, type KeyObject } from 'node:crypto';
import { type MessagePort, workerData } from 'node:worker_threads';
import { standardWebhookHeaders } from '@wirehook/core';
import type { UndiciPool } from '../http/undici.ts';
import { FloorLink } from './floor-link.ts';
import { endpointPool, type FloorAttempt, type FloorReceiver, postSigned, sendAndRecord } from './floor-parts.ts';
import { serveCalls } from './floor-thread.ts';

/** A committed delivery as the store thread hands it over: where it goes and what it carries. */
export interface FloorJob {
  id: string;
  messageId: string;
  endpointId: string;
  url: string;
  path: string;
  /** The endpoint's signing secret. */
  secret: Uint8Array;
  body: string;
}

/** What the delivery thread asks the store thread to write. */
export type RecordCall = { op: 'record'; deliveryId: string; attempt: FloorAttempt } | { op: 'fail'; deliveryId: string; at: number };

/** What the main thread asks of the delivery thread: an endpoint's pool closed (the endpoint deleted). */
export interface CloseCall {
  op: 'close';
  endpointId: string;
}

interface Target {
  pool: UndiciPool | null;
  key: KeyObject | null;
  path: string;
  removed: boolean;
}

const { link: port, inFlight, ...receiver } = workerData as FloorReceiver & { link: MessagePort; inFlight: number };
const targets = new Map<string, Target>();

const targetOf = (job: FloorJob): Target => {
  let target = targets.get(job.endpointId);
  if (target === undefined) {
    target = { pool: endpointPool(job.url, receiver), key: createSecretKey(job.secret), path: job.path, removed: false };
    targets.set(job.endpointId, target);
  }
  return target;
};

type Delivery = FloorJob & { attempts: number };
const link: FloorLink<never, RecordCall, unknown, FloorJob> = new FloorLink(port, { pushed: (job) => enqueue({ ...job, attempts: 0 }) });
const enqueue = sendAndRecord<Delivery, Target>(inFlight, {
  target: (delivery) => {
    const target = targetOf(delivery);
    return target.removed ? null : target;
  },
  post: (to, delivery, now) => postSigned(to.pool!, to.path, standardWebhookHeaders([to.key!], delivery.messageId, now, delivery.body), delivery.body),
  record: async (delivery, attempt) => void (await link.call({ op: 'record', deliveryId: delivery.id, attempt })),
  fail: async (delivery, at) => void (await link.call({ op: 'fail', deliveryId: delivery.id, at })),
});

serveCalls<CloseCall, null>(async ({ endpointId }) => {
  const target = targets.get(endpointId);
  // Deleted before any of its deliveries came: those that come fail unsent.
  if (target === undefined) targets.set(endpointId, { pool: null, key: null, path: '', removed: true });
  else {
    target.removed = true;
    await target.pool?.close();
  }
  return null;
});
