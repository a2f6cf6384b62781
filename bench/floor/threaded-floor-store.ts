// The threaded floor's store thread (bench/floor/threaded-floor-process.ts): the pipeline floor's
// SQLite file and group commit, on a worker thread as Wirehook's store writer. Each write is
// answered after its group commit's fsync.
import { DatabaseSync } from 'node:sqlite';
import { workerData } from 'node:worker_threads';
import { BARE_PIPELINE_SCHEMA } from '../setup/bare-schema.ts';
import { durabilityOf, type FloorAttempt, groupCommit, recordStatements } from './floor-parts.ts';
import { serveCalls } from './floor-thread.ts';

/** A call to the store thread. */
export type StoreCall =
  | { op: 'durability' }
  | { op: 'create'; messageId: string; payloadJson: string; createdAt: number; deliveries: { id: string; endpointId: string }[] }
  | { op: 'record'; deliveryId: string; attempt: FloorAttempt }
  | { op: 'fail'; deliveryId: string; at: number };

const { file } = workerData as { file: string };
const db = new DatabaseSync(file);
db.exec(BARE_PIPELINE_SCHEMA);
const insertMessage = db.prepare('INSERT INTO messages (id, payload, created_at) VALUES (?, ?, ?)');
const insertDelivery = db.prepare("INSERT INTO deliveries (id, message_id, endpoint_id, status, next_attempt_at) VALUES (?, ?, ?, 'pending', ?)");
const statements = recordStatements(db);
const write = groupCommit(db, file);

serveCalls<StoreCall, unknown>(async (call) => {
  switch (call.op) {
    case 'durability':
      return durabilityOf(db);
    case 'create':
      return write(() => {
        insertMessage.run(call.messageId, call.payloadJson, call.createdAt);
        for (const d of call.deliveries) insertDelivery.run(d.id, call.messageId, d.endpointId, call.createdAt);
      });
    case 'record':
      return write(() => statements.record(call.deliveryId, call.attempt));
    case 'fail':
      return write(() => statements.fail(call.deliveryId, call.at));
  }
});
