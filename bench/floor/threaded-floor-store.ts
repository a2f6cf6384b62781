// The threaded floor's store thread (bench/floor/threaded-floor-process.ts): the pipeline floor's
// SQLite file and group commit, on a worker thread as Wirehook's store writer. Each write is
// answered after its group commit's fsync.
import { workerData } from 'node:worker_threads';
import { durabilityOf, type FloorAttempt, recordStatements } from './floor-parts.ts';
import { type FloorMessageRows, openFloorStore } from './floor-store.ts';
import { serveCalls } from './floor-thread.ts';

/** A call to the store thread. */
export type StoreCall =
  | { op: 'durability' }
  | { op: 'create'; message: FloorMessageRows }
  | { op: 'record'; deliveryId: string; attempt: FloorAttempt }
  | { op: 'fail'; deliveryId: string; at: number };

const { file } = workerData as { file: string };
const { db, write, create } = openFloorStore(file);
const statements = recordStatements(db);

serveCalls<StoreCall, unknown>(async (call) => {
  switch (call.op) {
    case 'durability':
      return durabilityOf(db);
    case 'create':
      return write(() => create(call.message));
    case 'record':
      return write(() => statements.record(call.deliveryId, call.attempt));
    case 'fail':
      return write(() => statements.fail(call.deliveryId, call.at));
  }
});
