// The threaded floor's store thread (bench/floor/threaded-floor-process.ts): the pipeline floor's
// SQLite file and group commit, on a worker thread as Wirehook's store writer. Each write is
// answered after its group commit's fsync. In the delivery-thread floor (FLOOR_DELIVERY_THREAD=1)
// it also hands each committed delivery to the delivery thread and writes that thread's attempts,
// over their link (bench/floor/floor-delivery-thread.ts).
import { type MessagePort, workerData } from 'node:worker_threads';
import { type FloorJob, FloorLink, type FloorTo, type RecordCall } from './floor-link.ts';
import { durabilityOf, type FloorAttempt, recordStatements } from './floor-parts.ts';
import { type FloorMessageRows, openFloorStore } from './floor-store.ts';
import { serveCalls } from './floor-thread.ts';

/**
 * A call to the store thread. `health` answers the pragmas and the attempts recorded so far
 * (for the scenario's count, between runs). `handOver` (the delivery-thread floor's): the message's
 * deliveries are handed to the delivery thread once committed, with its event type and, for an
 * endpoint's first delivery, where it goes (`to`, by endpoint id).
 */
export type StoreCall =
  | { op: 'health' }
  | { op: 'create'; message: FloorMessageRows; handOver?: { eventType: string; to: Record<string, FloorTo> } }
  | { op: 'record'; deliveryId: string; attempt: FloorAttempt }
  | { op: 'fail'; deliveryId: string; at: number };

const { file, link: port } = workerData as { file: string; link?: MessagePort };
const { db, write, create } = openFloorStore(file);
const statements = recordStatements(db);
const countAttempts = db.prepare('SELECT count(*) AS n FROM attempts');

const run = (call: StoreCall | RecordCall): Promise<unknown> => {
  switch (call.op) {
    case 'health':
      return Promise.resolve({ ...durabilityOf(db), attempts: Number(countAttempts.get()?.['n']) });
    case 'create':
      return write(() => create(call.message));
    case 'record':
      return write(() => statements.record(call.deliveryId, call.attempt));
    case 'fail':
      return write(() => statements.fail(call.deliveryId, call.at));
  }
};

const link =
  port === undefined ? undefined : new FloorLink<FloorJob, never, never, never, RecordCall, unknown>(port, 'the link to the delivery thread', { serve: run });

serveCalls<StoreCall, unknown>(async (call) => {
  const done = await run(call);
  if (call.op === 'create' && call.handOver !== undefined) {
    const { id: messageId, payloadJson, createdAt, deliveries } = call.message;
    const { eventType, to } = call.handOver;
    for (const { id, endpointId } of deliveries) link!.push({ id, endpointId, messageId, eventType, createdAt, payloadJson, to: to[endpointId] });
  }
  return done;
});
