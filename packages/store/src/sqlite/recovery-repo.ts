import type { DeliveryId, EndpointId, Recovery, RecoveryId, RecoveryStatus, Tenant } from '@wirehook/core';
import { ConflictError, NotFoundError } from '@wirehook/core/without-schemas';
import { START_SKEW_MS, type NewRecovery, type RecoveryLease, type RecoveryRepo, type RecoveryStep } from '../ports/recovery-port.ts';
import type { SqliteConnection } from './connection.ts';
import { isUniqueViolation } from './constraint.ts';
import { refreshMessageStatuses, SENDABLE } from './message-status.ts';
import { rejoinLane } from './ordered-lanes.ts';
import { int, intOrNull, text, textOrNull, type Row } from './row.ts';

const TENANT = 'org_id = ? AND env = ?';

/** Recoveries in SQLite: the snapshot of targets, and progress stepped under a fenced lease. */
export class SqliteRecoveryRepo implements RecoveryRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async start(t: Tenant, input: NewRecovery): Promise<Recovery> {
    try {
      return this.#conn.immediate(() => {
        const endpoint = this.#conn.statement(`SELECT status FROM endpoints WHERE ${TENANT} AND id = ?`).get(t.orgId, t.env, input.endpointId);
        if (endpoint === undefined) throw new NotFoundError(`endpoint ${input.endpointId} not found`);
        if (text(endpoint, 'status') !== 'active') {
          throw new ConflictError(`endpoint ${input.endpointId} is ${text(endpoint, 'status')}; a recovery needs it active`);
        }
        const running = this.#conn.statement(`SELECT id FROM recoveries WHERE endpoint_id = ? AND status = 'running'`).get(input.endpointId);
        if (running !== undefined) throw new ConflictError(`recovery ${text(running, 'id')} is already running on endpoint ${input.endpointId}`);
        // The targets: failed deliveries of messages created at or after `since` (a delivery's
        // created_at is its message's). Counted here on the index; read batch by batch as the
        // recovery goes (step), so a start costs the same with 10 or 10^6 of them.
        const total = int(
          this.#conn
            // No tenant columns: the endpoint, checked above to be this tenant's, names them, and
            // without them the count reads the index alone (no row per target).
            .statement(`SELECT count(*) AS n FROM deliveries WHERE endpoint_id = ? AND status = 'failed' AND created_at >= ?`)
            .get(input.endpointId, input.since)!,
          'n',
        );
        const done = total === 0;
        const row = this.#conn
          .statement(
            `INSERT INTO recoveries (id, org_id, env, endpoint_id, since, status, total, queued, created_at, finished_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?) RETURNING *`,
          )
          .get(input.id, t.orgId, t.env, input.endpointId, input.since, done ? 'done' : 'running', total, input.createdAt, done ? input.createdAt : null);
        return toRecovery(row!);
      });
    } catch (err) {
      // Two starts at once in two processes: the index lets one in.
      if (isUniqueViolation(err, 'recoveries', ['endpoint_id'])) throw new ConflictError(`a recovery is already running on endpoint ${input.endpointId}`);
      throw err;
    }
  }

  async get(t: Tenant, endpointId: EndpointId, id: RecoveryId): Promise<Recovery | null> {
    const row = this.#conn.statement(`SELECT * FROM recoveries WHERE ${TENANT} AND endpoint_id = ? AND id = ?`).get(t.orgId, t.env, endpointId, id);
    return row === undefined ? null : toRecovery(row);
  }

  async latest(t: Tenant, endpointId: EndpointId): Promise<Recovery | null> {
    const row = this.#conn.statement(`SELECT * FROM recoveries WHERE ${TENANT} AND endpoint_id = ? ORDER BY id DESC LIMIT 1`).get(t.orgId, t.env, endpointId);
    return row === undefined ? null : toRecovery(row);
  }

  async claim(now: number, leaseUntil: number): Promise<RecoveryLease | null> {
    return this.#conn.immediate(() => {
      const row = this.#conn
        .statement(
          `UPDATE recoveries SET lease_until = ?, lease_token = lease_token + 1
            WHERE id = (SELECT id FROM recoveries WHERE status = 'running' AND (lease_until IS NULL OR lease_until <= ?) ORDER BY id LIMIT 1)
            RETURNING *`,
        )
        .get(leaseUntil, now);
      return row === undefined ? null : toLease(row);
    });
  }

  async step(lease: RecoveryLease, now: number, batch: number, maxOutstanding: number, leaseUntil: number): Promise<RecoveryStep> {
    return this.#conn.immediate(() => {
      const current = this.#conn
        .statement(`SELECT * FROM recoveries WHERE id = ? AND lease_token = ? AND status = 'running'`)
        .get(lease.recovery.id, lease.leaseToken);
      if (current === undefined) return { recovery: lease.recovery, queuedIds: [], applied: false };
      const recovery = toRecovery(current);
      const { tenant: t } = lease;
      const endpoint = this.#conn.statement(`SELECT status FROM endpoints WHERE ${TENANT} AND id = ?`).get(t.orgId, t.env, recovery.endpointId);
      if (endpoint === undefined || text(endpoint, 'status') !== 'active') {
        return { recovery: this.#finish(recovery.id, 'stopped', now), queuedIds: [], applied: true };
      }
      // Counted only up to the bound: a backlog of 10^5 due is not read to learn it is over 50.
      const outstanding = this.#conn
        .statement(
          `SELECT count(*) AS n FROM (SELECT 1 FROM deliveries WHERE ${TENANT} AND endpoint_id = ? ` + `AND ${SENDABLE} AND next_attempt_at <= ? LIMIT ?)`,
        )
        .get(t.orgId, t.env, recovery.endpointId, now, maxOutstanding);
      if (int(outstanding!, 'n') >= maxOutstanding) {
        this.#conn.statement('UPDATE recoveries SET lease_until = ? WHERE id = ?').run(leaseUntil, recovery.id);
        return { recovery, queuedIds: [], applied: true };
      }
      // The next targets after the cursor, oldest first (deliveries of one millisecond by id).
      const cursorAt = intOrNull(current, 'cursor_created_at') ?? recovery.since - 1;
      const cursorId = textOrNull(current, 'cursor_id') ?? '';
      const rows = this.#conn
        .statement(
          `SELECT id, created_at FROM deliveries
            WHERE endpoint_id = ? AND status = 'failed' AND created_at >= ? AND created_at <= ? AND (created_at, id) > (?, ?)
            ORDER BY created_at, id LIMIT ?`,
        )
        .all(recovery.endpointId, Math.max(recovery.since, cursorAt), recovery.createdAt + START_SKEW_MS, cursorAt, cursorId, batch);
      const targets = rows.map((row) => text(row, 'id'));
      // Only what is still failed and was not attempted since the start goes again: not one
      // re-sent by hand meanwhile (retrying, or sent and failed again: spec, recover rule 4),
      // nor one removed by retention. Its retry policy starts over.
      const requeue = this.#conn.statement(
        // lane_wait = 0 first (as MongoDB): a delivery failed while waiting in its lane keeps the
        // flag, and rejoinLane decides again; left at 1 it could become its lane's head out of
        // the due indexes, and the lane would never move again.
        `UPDATE deliveries SET status = 'retrying', manual = 0, resend = 0, policy_attempts = 0, next_attempt_at = ?, held = 0, lane_wait = 0
          WHERE id = ? AND status = 'failed'
            AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.delivery_id = deliveries.id AND a.at > ?)
          RETURNING message_id, endpoint_id, ordering_key`,
      );
      const queuedIds: DeliveryId[] = [];
      const messageIds: string[] = [];
      for (const id of targets) {
        const row = requeue.get(now, id, recovery.createdAt);
        if (row === undefined) continue;
        // An ordered delivery goes back into its lane: now if the lane is free, else in turn.
        const key = textOrNull(row, 'ordering_key');
        if (key !== null) rejoinLane(this.#conn, text(row, 'endpoint_id'), key, id);
        queuedIds.push(id as DeliveryId);
        messageIds.push(text(row, 'message_id'));
      }
      refreshMessageStatuses(this.#conn, messageIds);
      // A target gone through counts whether it went again or was skipped; one that is no longer
      // failed (re-sent by hand and delivered, removed by retention) is not met: the end counts it.
      if (rows.length < batch) {
        this.#conn.statement('UPDATE recoveries SET queued = total, last_batch_at = ? WHERE id = ?').run(now, recovery.id);
        return { recovery: this.#finish(recovery.id, 'done', now), queuedIds, applied: true };
      }
      const last = rows[rows.length - 1]!;
      const row = this.#conn
        .statement(
          'UPDATE recoveries SET queued = min(total, queued + ?), cursor_created_at = ?, cursor_id = ?, last_batch_at = ?, lease_until = ? ' +
            'WHERE id = ? RETURNING *',
        )
        .get(targets.length, int(last, 'created_at'), text(last, 'id'), now, leaseUntil, recovery.id);
      return { recovery: toRecovery(row!), queuedIds, applied: true };
    });
  }

  async release(lease: RecoveryLease): Promise<void> {
    this.#conn.statement('UPDATE recoveries SET lease_until = NULL WHERE id = ? AND lease_token = ?').run(lease.recovery.id, lease.leaseToken);
  }

  async stop(t: Tenant, endpointId: EndpointId, now: number): Promise<boolean> {
    return this.#conn.immediate(() => {
      const row = this.#conn.statement(`SELECT id FROM recoveries WHERE ${TENANT} AND endpoint_id = ? AND status = 'running'`).get(t.orgId, t.env, endpointId);
      if (row === undefined) return false;
      this.#finish(text(row, 'id') as RecoveryId, 'stopped', now);
      return true;
    });
  }

  async releaseAll(): Promise<number> {
    const { changes } = this.#conn.statement('UPDATE recoveries SET lease_until = NULL WHERE lease_until IS NOT NULL').run();
    return Number(changes);
  }

  /** Ends a recovery (nothing of it to delete: its targets were never copied). */
  #finish(id: RecoveryId, status: Exclude<RecoveryStatus, 'running'>, now: number): Recovery {
    const row = this.#conn.statement('UPDATE recoveries SET status = ?, finished_at = ?, lease_until = NULL WHERE id = ? RETURNING *').get(status, now, id);
    return toRecovery(row!);
  }
}

function toRecovery(row: Row): Recovery {
  return {
    id: text(row, 'id') as RecoveryId,
    endpointId: text(row, 'endpoint_id') as EndpointId,
    since: int(row, 'since'),
    status: text(row, 'status') as RecoveryStatus,
    total: int(row, 'total'),
    queued: int(row, 'queued'),
    createdAt: int(row, 'created_at'),
    finishedAt: intOrNull(row, 'finished_at'),
  };
}

function toLease(row: Row): RecoveryLease {
  return {
    tenant: { orgId: text(row, 'org_id') as Tenant['orgId'], env: text(row, 'env') as Tenant['env'] },
    recovery: toRecovery(row),
    leaseToken: int(row, 'lease_token'),
    lastBatchAt: intOrNull(row, 'last_batch_at'),
  };
}
