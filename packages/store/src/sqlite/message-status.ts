import type { DeliveryStatus, MessageId } from '@wirehook/core';
import { messageStatus } from '@wirehook/core/without-schemas';
import type { SqliteConnection } from './connection.ts';
import type { BatchTally } from './group-commit.ts';
import { text } from './row.ts';

// Writes that change delivery statuses, shared by the repos. Each runs inside the caller's
// transaction, so a message's stored status never disagrees with its deliveries.

/** The statuses a delivery still has work in; the partial indexes on open deliveries cover exactly these. */
export const OPEN = `status IN ('pending', 'retrying')`;

/**
 * Open, not held, not waiting in a lane: what deliveries_due keeps, and the (0, endpoint, 0)
 * ranges of deliveries_endpoint_queue — the deliveries a send may take once they are due.
 */
export const SENDABLE = `${OPEN} AND held = 0 AND lane_wait = 0`;

/**
 * deliveries_endpoint_aged's condition (schema 37), as SQLite must see it to read that index:
 * the open deliveries due at another time than their creation, retrying, held or waiting in a
 * lane. Every other open delivery is pending and due at its creation.
 */
export const AGED = `${OPEN} AND (status = 'retrying' OR held = 1 OR lane_wait = 1 OR next_attempt_at IS NOT created_at)`;

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

/**
 * Inside a batched write: the status of each message is recomputed once at the end of the batch
 * (GroupCommit.stage), from its deliveries as the batch leaves them — the fan-out's deliveries
 * completed in one batch cost one read and at most one write of their message, not one each.
 * Nothing outside the batch reads in between, and it commits with the batch. A write later in
 * the same batch that reads the message (an idempotent replay's original) sees the status the
 * batch began with, as if it had come just before the completion.
 */
export function refreshAtBatchEnd(conn: SqliteConnection, messageId: string): void {
  conn.stage(openStatusTally, (tally) => tally.ids.add(messageId));
}

class StatusTally implements BatchTally {
  readonly ids = new Set<string>();
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  flush(): void {
    refreshMessageStatuses(this.#conn, this.ids);
  }
}

const openStatusTally = (conn: SqliteConnection): StatusTally => new StatusTally(conn);
