// The threaded floor (issue 46): the pipeline floor (bench/floor/floor-process.ts) laid over the
// threads embedded Wirehook runs on, so that `pnpm bench` can tell what those threads cost apart
// from what Wirehook adds. The main thread accepts (the API's frame, the message's checks) and
// signs, as Wirehook's does; the SQLite file and its group commit are on a thread of their own
// (`store-writer`, as Wirehook's store writer), the POSTs on another (`egress`, as Wirehook's
// egress thread). Each crossing carries one turn's calls, and its answers one turn's. The steps,
// schema, egress defaults, retries and in-memory setup are the pipeline floor's; each worker's
// young generation is capped as Wirehook's thread of its role is. Not in it, so not in what it
// measures of the threads: Wirehook's store reader (a floor's key lookup is a Map's); the claimed
// job a create answers in Wirehook (the delivery, its endpoint and secrets; not the payload),
// where the floor's create answers nothing; the egress thread's timer a send and the threads'
// ref and unref.
//
// With FLOOR_DELIVERY_THREAD=1 in its environment, the delivery-thread floor instead (a
// measurement for issue 46, not one of `pnpm bench`'s scenarios): the store thread hands each
// committed delivery to a delivery thread (still named `egress`), which signs, POSTs and writes
// each attempt back through the store thread over one MessagePort; the main thread answers the
// API and nothing else (bench/floor/floor-delivery-thread.ts).
//
// Forked by the threaded-floor scenario (bench/scenarios/floor.ts) with its options as JSON in
// argv[2]; says its port over IPC.
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { standardWebhookHeaders } from '@wirehook/core';
import { EGRESS_THREAD_YOUNG_GENERATION_MB } from '../../packages/egress/src/egress-thread.ts';
import { STORE_THREAD_YOUNG_GENERATION_MB } from '../../packages/store/src/sqlite/store-thread.ts';
import { endWithHarness, type FloorProcessOptions, type Sent, sendAndRecord, serveApi } from './floor-parts.ts';
import { type FloorEndpoint, floorRoutes, type RoutedDelivery } from './floor-routes.ts';
import { FloorThread } from './floor-thread.ts';
import type { CloseCall, FloorTo } from './floor-link.ts';
import type { EgressCall } from './threaded-floor-egress.ts';
import type { StoreCall } from './threaded-floor-store.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as FloorProcessOptions;
endWithHarness();
const file = join(options.dataDir, 'floor.sqlite');
const receiver = { resolve: options.resolve, caPem: options.caPem };
const floor = process.env['FLOOR_DELIVERY_THREAD'] === '1' ? deliveryThreadFloor() : threadedFloor();
// Its /healthz says which floor was built and how many attempts it has recorded, for the scenario
// to record (`deliveryThread`, `attemptsRecorded` in a run's extra).
serveApi(floor.route, async () => ({ ...((await floor.store.call({ op: 'health' })) as object), deliveryThread: floor.deliveryThread }));

/** The threaded floor: the main thread sends and records, the egress thread POSTs. */
function threadedFloor() {
  const store = new FloorThread<StoreCall, unknown>(
    new URL('./threaded-floor-store.ts', import.meta.url),
    'store-writer',
    { file },
    STORE_THREAD_YOUNG_GENERATION_MB,
  );
  const egress = new FloorThread<EgressCall, Sent | null>(
    new URL('./threaded-floor-egress.ts', import.meta.url),
    'egress',
    receiver,
    EGRESS_THREAD_YOUNG_GENERATION_MB,
  );
  type Delivery = RoutedDelivery<FloorEndpoint>;
  const enqueue = sendAndRecord<Delivery, FloorEndpoint>(options.inFlight, {
    target: ({ endpoint }) => (endpoint.removed ? null : endpoint),
    post: async (endpoint, delivery, now) => {
      const headers = standardWebhookHeaders([endpoint.key], delivery.messageId, now, delivery.body);
      const call: EgressCall = { op: 'post', endpointId: endpoint.id, url: endpoint.url, path: endpoint.path, headers, body: delivery.body };
      return (await egress.call(call))!;
    },
    record: async (delivery, attempt) => void (await store.call({ op: 'record', deliveryId: delivery.id, attempt })),
    fail: async (delivery, at) => void (await store.call({ op: 'fail', deliveryId: delivery.id, at })),
  });
  const route = floorRoutes<FloorEndpoint>({
    endpoint: (registered) => registered,
    write: async ({ id, payloadJson, createdAt }, deliveries) => {
      await store.call({ op: 'create', message: { id, payloadJson, createdAt, deliveries: deliveries.map((d) => ({ id: d.id, endpointId: d.endpoint.id })) } });
    },
    enqueue,
    // Its sends in flight end first (undici's close); a close that fails leaves nothing to measure wrong.
    removed: (endpoint) => void egress.call({ op: 'close', endpointId: endpoint.id }).catch(() => {}),
  });
  return { store, route, deliveryThread: false };
}

/** The delivery-thread floor: the store thread feeds the delivery thread, which records through it; the main thread only answers. */
function deliveryThreadFloor() {
  const { port1, port2 } = new MessageChannel();
  const store = new FloorThread<StoreCall, unknown>(
    new URL('./threaded-floor-store.ts', import.meta.url),
    'store-writer',
    { file, link: port1 },
    STORE_THREAD_YOUNG_GENERATION_MB,
    [port1],
  );
  const delivery = new FloorThread<CloseCall, null>(
    new URL('./floor-delivery-thread.ts', import.meta.url),
    'egress',
    { ...receiver, inFlight: options.inFlight, link: port2 },
    EGRESS_THREAD_YOUNG_GENERATION_MB,
    [port2],
  );
  // An endpoint's target crosses with its first delivery only (`handedOver`): the delivery thread keeps it.
  type Endpoint = FloorEndpoint & { secret: Uint8Array; handedOver: boolean };
  const route = floorRoutes<Endpoint>({
    endpoint: (registered) => ({ ...registered, secret: registered.key.export(), handedOver: false }),
    // Built on the delivery thread, where it is signed.
    buildsBody: false,
    write: async ({ id, eventType, payloadJson, createdAt }, deliveries) => {
      const to: Record<string, FloorTo> = {};
      for (const { endpoint } of deliveries) {
        if (endpoint.handedOver) continue;
        endpoint.handedOver = true;
        to[endpoint.id] = { url: endpoint.url, path: endpoint.path, secret: endpoint.secret };
      }
      const rows = deliveries.map((d) => ({ id: d.id, endpointId: d.endpoint.id }));
      await store.call({ op: 'create', message: { id, payloadJson, createdAt, deliveries: rows }, handOver: { eventType, to } });
    },
    // The store thread hands them to the delivery thread once committed.
    enqueue: () => {},
    removed: (endpoint) => void delivery.call({ op: 'close', endpointId: endpoint.id }).catch(() => {}),
  });
  return { store, route, deliveryThread: true };
}
