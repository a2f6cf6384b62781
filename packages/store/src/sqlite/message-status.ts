import { messageStatus, type DeliveryStatus, type MessageId } from '@wirehook/core';
import type { SqliteConnection } from './connection.ts';
import { text } from './row.ts';

// Writes that change delivery statuses, shared by the repos. Each runs inside the caller's
// transaction, so a message's stored status never disagrees with its deliveries.

/** The statuses a delivery still has work in; the partial indexes on open deliveries cover exactly these. */
export const OPEN = `status IN ('pending', 'retrying')`;

/** Recomputes (with core's `messageStatus`) and stores the status of each message. */
export function refreshMessageStatuses(conn: SqliteConnection, messageIds: Iterable<string>): void {
  for (const id of new Set(messageIds)) {
    const deliveries = conn
      .statement('SELECT status FROM deliveries WHERE message_id = ?')
      .all(id)
      .map((row) => ({ status: text(row, 'status') as DeliveryStatus }));
    const status = messageStatus(deliveries);
    // Unchanged (e.g. 19 of a fan-out's 20 completions): no row to write.
    conn.statement('UPDATE messages SET status = ? WHERE id = ? AND status <> ?').run(status, id as MessageId, status);
  }
}
