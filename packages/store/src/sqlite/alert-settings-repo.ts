import type { AlertConditions, AlertTargetId, EndpointId, Environment, OrgId, Tenant } from '@wirehook/core';
import { ConflictError, InvalidError, PENDING_RETRIES_COUNTED_UP_TO, USAGE_NOTICE_FLOOR } from '@wirehook/core/without-schemas';
import {
  alertStateDue,
  readAlertState,
  targetCapMessage,
  type AlertEvent,
  type AlertSettingsRepo,
  type AlertState,
  type AlertTarget,
  type ClaimedNotice,
  type FailingCursor,
  type NoticeAttempt,
  type NoticeClaimFairness,
  type NoticeDelivery,
  type RetryingPage,
} from '../ports/alert-settings-port.ts';
import { NoticeTurns } from '../alert-notice-turns.ts';
import type { SqliteConnection } from './connection.ts';
import { int, intOrNull, json, text, textOrNull, type Row } from './row.ts';

/** Pairs one lookup of a claim steps over at most (its seeks: 2 each); past it the walk moves on from there. */
const PAIR_STEPS = 64;
/** Sorts after every target id (`atg_…`, `owner`): the position past an organization's last target. */
const LAST_TARGET = '\uffff';

/** Alert conditions in SQLite, one JSON document per environment of an organization (step 27). */
export class SqliteAlertSettingsRepo implements AlertSettingsRepo {
  readonly #conn: SqliteConnection;
  /** Whose turn it is in the outbox: the organization and, per organization, the target last served. */
  readonly #turns = new NoticeTurns();

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async conditions(t: Tenant): Promise<AlertConditions | null> {
    const row = this.#conn.statement('SELECT conditions FROM alert_env_conditions WHERE org_id = ? AND env = ?').get(t.orgId, t.env);
    return row === undefined ? null : json<AlertConditions>(row, 'conditions');
  }

  async setConditions(t: Tenant, conditions: AlertConditions, at: number): Promise<void> {
    this.#conn
      .statement(
        `INSERT INTO alert_env_conditions (org_id, env, conditions, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (org_id, env) DO UPDATE SET conditions = excluded.conditions, updated_at = excluded.updated_at`,
      )
      .run(t.orgId, t.env, JSON.stringify(conditions), at);
  }

  async createTarget(t: Tenant, target: Omit<AlertTarget, 'env'>, max?: number): Promise<AlertTarget> {
    // Counted and inserted in one write transaction: concurrent creates cannot pass the cap together.
    this.#conn.immediate(() => {
      if (max !== undefined) {
        const count = int(this.#conn.statement('SELECT count(*) AS n FROM alert_targets WHERE org_id = ? AND env = ?').get(t.orgId, t.env)!, 'n');
        if (count >= max) throw new InvalidError(targetCapMessage(t, count, max));
      }
      this.#conn
        .statement('INSERT INTO alert_targets (id, org_id, env, type, url, address, sealed_secret, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(target.id, t.orgId, t.env, target.type, target.url, target.address, target.sealedSecret, target.createdAt);
    });
    return { ...target, env: t.env };
  }

  async targets(t: Tenant): Promise<AlertTarget[]> {
    return this.#conn.statement('SELECT * FROM alert_targets WHERE org_id = ? AND env = ? ORDER BY id').all(t.orgId, t.env).map(toTarget);
  }

  async target(orgId: OrgId, id: AlertTargetId): Promise<AlertTarget | null> {
    const row = this.#conn.statement('SELECT * FROM alert_targets WHERE org_id = ? AND id = ?').get(orgId, id);
    return row === undefined ? null : toTarget(row);
  }

  async deleteTarget(t: Tenant, id: AlertTargetId): Promise<boolean> {
    return Number(this.#conn.statement('DELETE FROM alert_targets WHERE org_id = ? AND env = ? AND id = ?').run(t.orgId, t.env, id).changes) > 0;
  }

  async eventOrgs(limit: number): Promise<OrgId[]> {
    return this.#conn
      .statement('SELECT org_id, min(seq) AS oldest FROM alert_events GROUP BY org_id ORDER BY oldest LIMIT ?')
      .all(limit)
      .map((row) => text(row, 'org_id') as OrgId);
  }

  async events(orgId: OrgId, limit: number): Promise<AlertEvent[]> {
    return this.#conn
      .statement('SELECT * FROM alert_events WHERE org_id = ? ORDER BY seq LIMIT ?')
      .all(orgId, limit)
      .map((row) => ({
        id: String(int(row, 'seq')),
        tenant: { orgId: text(row, 'org_id') as OrgId, env: text(row, 'env') as Environment },
        kind: text(row, 'kind') as AlertEvent['kind'],
        endpointId: text(row, 'endpoint_id') as EndpointId,
        at: int(row, 'at'),
        error: textOrNull(row, 'error'),
        responseStatus: intOrNull(row, 'response_status'),
        deliveryId: textOrNull(row, 'delivery_id'),
      }));
  }

  async failingOrgs(since: number, before: number, afterOrgId: OrgId | null, limit: number): Promise<OrgId[]> {
    return this.#conn
      .statement(
        `SELECT DISTINCT org_id FROM endpoints
          WHERE failing_since IS NOT NULL AND org_id > ? AND failing_since >= ? AND failing_since <= ? AND status = 'active'
          ORDER BY org_id LIMIT ?`,
      )
      .all(afterOrgId ?? '', since, before, limit)
      .map((row) => text(row, 'org_id') as OrgId);
  }

  async failingEndpoints(
    orgId: OrgId,
    since: number,
    before: number,
    after: FailingCursor | null,
    limit: number,
  ): Promise<{ tenant: Tenant; endpointId: EndpointId; failingSince: number }[]> {
    return this.#conn
      .statement(
        `SELECT org_id, env, id, failing_since FROM endpoints
          WHERE failing_since IS NOT NULL AND org_id = ? AND failing_since >= ? AND failing_since <= ? AND status = 'active'
            AND (failing_since, id) > (?, ?)
          ORDER BY failing_since, id LIMIT ?`,
      )
      .all(orgId, since, before, after?.failingSince ?? -1, after?.endpointId ?? '', limit)
      .map((row) => ({
        tenant: { orgId: text(row, 'org_id') as OrgId, env: text(row, 'env') as Environment },
        endpointId: text(row, 'id') as EndpointId,
        failingSince: int(row, 'failing_since'),
      }));
  }

  async retryingCounts(min: number, after: OrgId | null, _orgs: number): Promise<RetryingPage> {
    // The whole walk in one page: a row per endpoint (endpoint_counts, kept by triggers), not one per retrying delivery.
    const counts = this.#conn
      .statement('SELECT org_id, env, sum(retrying) AS total FROM endpoint_counts WHERE org_id > ? GROUP BY org_id, env HAVING total >= ? ORDER BY org_id, env')
      .all(after ?? '', min)
      .map((row) => ({
        tenant: { orgId: text(row, 'org_id') as OrgId, env: text(row, 'env') as Environment },
        count: int(row, 'total'),
        exact: true,
      }));
    return { counts, next: null };
  }

  async retryingCount(t: Tenant, upTo: number): Promise<number> {
    // Never asked of SQLite by the alerting engine (retryingCounts is exact here); a row per endpoint.
    const row = this.#conn.statement('SELECT coalesce(sum(retrying), 0) AS total FROM endpoint_counts WHERE org_id = ? AND env = ?').get(t.orgId, t.env);
    return Math.min(int(row!, 'total'), upTo, PENDING_RETRIES_COUNTED_UP_TO);
  }

  async liveMonthUsage(month: string, _now: number): Promise<{ orgId: OrgId; used: number }[]> {
    // The keys intake writes: live:<org>:<YYYY-MM> (message-intake's usageCounters).
    return this.#conn
      .statement(`SELECT key, value FROM usage_counters WHERE key LIKE 'live:%' AND substr(key, -7) = ? AND value >= ?`)
      .all(month, USAGE_NOTICE_FLOOR)
      .map((row) => ({ orgId: text(row, 'key').split(':')[1] as OrgId, used: int(row, 'value') }));
  }

  async statesDue(now: number, limit: number): Promise<OrgId[]> {
    return this.#conn
      .statement('SELECT org_id FROM alert_state WHERE has_pending = 1 AND window_end <= ? ORDER BY window_end LIMIT ?')
      .all(now, limit)
      .map((row) => text(row, 'org_id') as OrgId);
  }

  async state(orgId: OrgId): Promise<AlertState | null> {
    const row = this.#conn.statement('SELECT state FROM alert_state WHERE org_id = ?').get(orgId);
    return row === undefined ? null : readAlertState(json<AlertState>(row, 'state'));
  }

  async commitStep(orgId: OrgId, consumed: string[], state: AlertState, notices: NoticeDelivery[]): Promise<void> {
    this.#conn.immediate(() => {
      const remove = this.#conn.statement('DELETE FROM alert_events WHERE seq = ?');
      for (const id of consumed) {
        if (Number(remove.run(Number(id)).changes) === 0) throw new ConflictError(`alert event ${id} was consumed by another worker`);
      }
      const stored = this.#conn.statement('SELECT state FROM alert_state WHERE org_id = ?').get(orgId);
      const storedVersion = stored === undefined ? 0 : json<AlertState>(stored, 'state').version;
      if (state.version !== storedVersion + 1) throw new ConflictError(`the alert state of ${orgId} moved on (version ${storedVersion})`);
      const due = alertStateDue(state);
      this.#conn
        .statement(
          `INSERT INTO alert_state (org_id, state, window_end, has_pending) VALUES (?, ?, ?, ?)
           ON CONFLICT (org_id) DO UPDATE SET state = excluded.state, window_end = excluded.window_end, has_pending = excluded.has_pending`,
        )
        .run(orgId, JSON.stringify(state), due.windowEnd, due.hasPending ? 1 : 0);
      for (const n of notices) insertNotice(this.#conn, n);
    });
  }

  async queueNotice(n: NoticeDelivery): Promise<void> {
    insertNotice(this.#conn, n);
  }

  async claimNotices(now: number, leaseUntil: number, claim: string, limit: number, fair?: NoticeClaimFairness): Promise<ClaimedNotice[]> {
    // Seeks of alert_notices_org_due only, each O(log n), never a scan: the next (organization,
    // target) pair after a position that has notices to come (row values: one range seek), and
    // whether that pair has one due (a seek into its own range). A pair whose notices are not
    // due (retrying later, or leased) costs two seeks, not a read of its notices.
    const nextPair = this.#conn.statement(
      `SELECT org_id, target_id FROM alert_notices INDEXED BY alert_notices_org_due
        WHERE next_attempt_at IS NOT NULL AND (org_id, target_id) > (?, ?) ORDER BY org_id, target_id LIMIT 1`,
    );
    const dueOfPair = this.#conn.statement(
      `SELECT id FROM alert_notices INDEXED BY alert_notices_org_due
        WHERE org_id = ? AND target_id = ? AND next_attempt_at IS NOT NULL AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT 1`,
    );
    /** The first pair from (org, target) on with a due notice, within PAIR_STEPS; or where the steps ran out. */
    const stepPairs = (org: string, target: string, sameOrg: boolean): { org: string; target: string; id: string | null } | null => {
      let at = { org, target };
      for (let step = 0; step < PAIR_STEPS; step++) {
        const pair = nextPair.get(at.org, at.target);
        if (pair === undefined) return null;
        at = { org: text(pair, 'org_id'), target: text(pair, 'target_id') };
        if (sameOrg && at.org !== org) return null;
        const due = dueOfPair.get(at.org, at.target, now);
        if (due !== undefined) return { ...at, id: text(due, 'id') };
      }
      return { ...at, id: null };
    };
    // Leased: not due again before the lease ends (then another claim may take it).
    const take = this.#conn.statement(
      'UPDATE alert_notices SET next_attempt_at = ?, lease_until = ?, claim = ? WHERE id = ? AND next_attempt_at <= ? RETURNING *',
    );
    // Nothing due anywhere (the usual tick): one index key, and no write lock taken.
    const anyDue = this.#conn.statement(
      'SELECT 1 FROM alert_notices INDEXED BY alert_notices_due WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ? LIMIT 1',
    );
    if (anyDue.get(now) === undefined) return [];
    return this.#conn.immediate(() =>
      this.#turns.claim(limit, fair, {
        // Past `after`'s every target: its last possible target id sorts after any real one.
        nextOrg: (after) => stepPairs(after, LAST_TARGET, false)?.org ?? null,
        takeOf: (orgId, afterTarget) => {
          const found = stepPairs(orgId, afterTarget, true);
          if (found?.id == null) return null;
          const taken = take.get(leaseUntil, leaseUntil, claim, found.id, now);
          return taken === undefined ? null : toClaimed(taken, claim);
        },
      }),
    );
  }

  async pruneNotices(before: number, attemptsBefore: number, batch: number): Promise<number> {
    return this.#conn.immediate(() => {
      const notices = this.#conn
        .statement(
          'DELETE FROM alert_notices WHERE id IN (SELECT id FROM alert_notices WHERE next_attempt_at IS NULL AND created_at < ? ORDER BY created_at LIMIT ?)',
        )
        .run(before, batch).changes;
      const attempts = this.#conn
        .statement('DELETE FROM alert_notice_attempts WHERE id IN (SELECT id FROM alert_notice_attempts WHERE at < ? ORDER BY at LIMIT ?)')
        .run(attemptsBefore, batch).changes;
      return Number(notices) + Number(attempts);
    });
  }

  async recordNoticeAttempt(id: string, claim: string, attempt: NoticeAttempt, sent: boolean, next: number | null): Promise<void> {
    this.#conn.immediate(() => {
      const notice = this.#conn.statement('SELECT org_id, target_id, claim FROM alert_notices WHERE id = ?').get(id);
      if (notice === undefined) return;
      this.#conn
        .statement('INSERT INTO alert_notice_attempts (notice_id, org_id, target_id, at, response_status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(id, text(notice, 'org_id'), text(notice, 'target_id'), attempt.at, attempt.responseStatus, attempt.error, attempt.durationMs);
      // Only the claim that holds the notice moves it on: one re-claimed after its lease ran out is the new holder's.
      this.#conn
        .statement(
          'UPDATE alert_notices SET attempts = attempts + 1, next_attempt_at = ?, lease_until = NULL, claim = NULL, sent = ? WHERE id = ? AND claim = ?',
        )
        .run(next, sent ? 1 : 0, id, claim);
    });
  }

  async noticeAttempts(orgId: OrgId, targetId: AlertTargetId, limit: number): Promise<(NoticeAttempt & { noticeId: string; type: string })[]> {
    return this.#conn
      .statement(
        `SELECT a.*, n.type FROM alert_notice_attempts a JOIN alert_notices n ON n.id = a.notice_id
          WHERE a.org_id = ? AND a.target_id = ? ORDER BY a.at DESC, a.id DESC LIMIT ?`,
      )
      .all(orgId, targetId, limit)
      .map((row) => ({
        noticeId: text(row, 'notice_id'),
        type: text(row, 'type'),
        at: int(row, 'at'),
        responseStatus: intOrNull(row, 'response_status'),
        error: textOrNull(row, 'error'),
        durationMs: int(row, 'duration_ms'),
      }));
  }
}

function toClaimed(row: Row, claim: string): ClaimedNotice {
  return {
    id: text(row, 'id'),
    orgId: text(row, 'org_id') as OrgId,
    targetId: text(row, 'target_id') as AlertTargetId,
    type: text(row, 'type'),
    body: text(row, 'body'),
    createdAt: int(row, 'created_at'),
    attempts: int(row, 'attempts'),
    claim,
  };
}

function toTarget(row: Row): AlertTarget {
  return {
    id: text(row, 'id') as AlertTargetId,
    type: text(row, 'type') as AlertTarget['type'],
    url: textOrNull(row, 'url'),
    address: textOrNull(row, 'address'),
    env: text(row, 'env') as Environment,
    sealedSecret: textOrNull(row, 'sealed_secret'),
    createdAt: int(row, 'created_at'),
  };
}

/** Queues a notice, due at once (the outbox claims it on its next tick). */
export function insertNotice(conn: SqliteConnection, n: NoticeDelivery): void {
  conn
    .statement('INSERT INTO alert_notices (id, org_id, target_id, type, body, created_at, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(n.id, n.orgId, n.targetId, n.type, n.body, n.createdAt, n.createdAt);
}
