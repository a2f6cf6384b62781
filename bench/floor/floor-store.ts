// The one-process floors' store (bench/floor/floor-process.ts, and the threaded floor's store
// thread, bench/floor/threaded-floor-store.ts): apart from floor-parts.ts, so that what opens no
// such store (the threaded floor's egress thread, the cluster floor's processes) does not load it.
import { DatabaseSync } from 'node:sqlite';
import { BARE_PIPELINE_SCHEMA } from '../setup/bare-schema.ts';
import { groupCommit } from './floor-parts.ts';

/** A message as the floors write it, and its deliveries' ids with their endpoints'. */
export interface FloorMessageRows {
  id: string;
  payloadJson: string;
  createdAt: number;
  deliveries: readonly { id: string; endpointId: string }[];
}

/**
 * The one-process floors' store (the floor's, the threaded floor's store thread): the bare
 * schema on `file`, its group commit, and the write of a message with its deliveries (a
 * statement to run inside a group commit's write).
 */
export function openFloorStore(file: string): { db: DatabaseSync; write: ReturnType<typeof groupCommit>; create: (message: FloorMessageRows) => void } {
  const db = new DatabaseSync(file);
  db.exec(BARE_PIPELINE_SCHEMA);
  const insertMessage = db.prepare('INSERT INTO messages (id, payload, created_at) VALUES (?, ?, ?)');
  const insertDelivery = db.prepare("INSERT INTO deliveries (id, message_id, endpoint_id, status, next_attempt_at) VALUES (?, ?, ?, 'pending', ?)");
  return {
    db,
    write: groupCommit(db, file),
    create: (message) => {
      insertMessage.run(message.id, message.payloadJson, message.createdAt);
      for (const d of message.deliveries) insertDelivery.run(d.id, message.id, d.endpointId, message.createdAt);
    },
  };
}
