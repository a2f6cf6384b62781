import type { ConsumerId, Endpoint, EndpointId, EndpointTransformation, EndpointStatus, Environment, OrgId, StoredSecret, Tenant } from '@wirehook/core';
import { ENDPOINT_WALK_BATCH, InvalidError, NotFoundError } from '@wirehook/core/without-schemas';
import type { EndpointPatch, EndpointRepo, ExpiringCertificate, ExpiryCursor, ExpiryWalkRow } from '../ports/endpoint-port.ts';
import { START_SKEW_MS } from '../ports/recovery-port.ts';
import type { SqliteConnection } from './connection.ts';
import { endpointPatchAssignments } from './endpoint-patch.ts';
import { toEndpoint, toStoredSecret, transformationColumns, transformationOf } from './mappers.ts';
import { endHold, respace } from './endpoint-put-off.ts';
import { dropHold, endFailAt, forgetWalk, recordWalk, walkBatch } from './endpoint-walk.ts';
import { releaseLanes } from './ordered-lanes.ts';
import { forgetRecentAttempts } from './recent-attempts.ts';
import { int, intOrNull, text, toJsonOrNull, type Row } from './row.ts';

const TENANT_ID = 'org_id = ? AND env = ? AND id = ?';
/** A certificate's expiry as endpoints_tls_expiry and endpoints_tls_tenant_expiry index it (the same expression, or SQLite uses neither). */
const EXPIRY = "json_extract(tls, '$.info.notAfter')";
/** A hold or fail walk makes nothing due: its batch needs no time. */
const NO_RELEASE = 0;

/** Endpoints and their signing secrets in SQLite, scoped by tenant. */
export class SqliteEndpointRepo implements EndpointRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  /** @throws NotFoundError when the tenant has no such consumer; InvalidError at the cap. */
  async create(t: Tenant, endpoint: Endpoint, secret: StoredSecret, maxPerConsumer: number): Promise<Endpoint> {
    return this.#conn.immediate(() => {
      const check = this.#conn
        .statement(
          `SELECT EXISTS (SELECT 1 FROM consumers WHERE ${TENANT_ID}) AS found,
                  (SELECT count(*) FROM endpoints WHERE org_id = ? AND env = ? AND consumer_id = ?) AS count`,
        )
        .get(t.orgId, t.env, endpoint.consumerId, t.orgId, t.env, endpoint.consumerId);
      if (check === undefined || int(check, 'found') !== 1) {
        throw new NotFoundError(`consumer ${endpoint.consumerId} not found`);
      }
      const count = int(check, 'count');
      if (count >= maxPerConsumer) {
        throw new InvalidError(`consumer ${endpoint.consumerId} already has ${count} endpoints; the limit is ${maxPerConsumer}`);
      }
      const row = this.#conn
        .statement(
          `INSERT INTO endpoints (id, org_id, env, consumer_id, url, description, event_types, fixed_ip, status,
                                  disabled_reason, failing_since, created_at, retry, compat_signature, ordering,
                                  rate_limit, type, headers, tls, auth, transformation_ref, transformation_code)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        )
        .get(
          endpoint.id,
          t.orgId,
          t.env,
          endpoint.consumerId,
          endpoint.url,
          endpoint.description,
          toJsonOrNull(endpoint.eventTypes),
          endpoint.fixedIp ? 1 : 0,
          endpoint.status,
          endpoint.disabledReason,
          endpoint.failingSince,
          endpoint.createdAt,
          JSON.stringify(endpoint.retry),
          toJsonOrNull(endpoint.compatSignature),
          endpoint.ordering ?? 'none',
          endpoint.rateLimit ?? null,
          endpoint.type ?? 'http',
          toJsonOrNull(endpoint.headers ?? null),
          toJsonOrNull(endpoint.tls ?? null),
          toJsonOrNull(endpoint.auth ?? null),
          ...transformationColumns(endpoint.transformation ?? null),
        );
      if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
      this.#insertSecret(endpoint.id, secret);
      return toEndpoint(row);
    });
  }

  async get(t: Tenant, id: EndpointId): Promise<Endpoint | null> {
    const row = this.#conn.statement(`SELECT * FROM endpoints WHERE ${TENANT_ID}`).get(t.orgId, t.env, id);
    return row === undefined ? null : toEndpoint(row);
  }

  async transformation(t: Tenant, id: EndpointId): Promise<EndpointTransformation | null> {
    const row = this.#conn.statement(`SELECT transformation_ref, transformation_code FROM endpoints WHERE ${TENANT_ID}`).get(t.orgId, t.env, id);
    return row === undefined ? null : transformationOf(row);
  }

  async hold(t: Tenant, id: EndpointId, until: number): Promise<void> {
    this.#conn.statement(`UPDATE endpoints SET held_until = max(coalesce(held_until, 0), ?) WHERE ${TENANT_ID}`).run(until, t.orgId, t.env, id);
  }

  async list(t: Tenant, filter: { consumerId?: ConsumerId; afterId?: EndpointId; limit?: number }): Promise<Endpoint[]> {
    const after = filter.afterId ?? '';
    // SQLite's LIMIT -1: no limit. A negative one of the caller's would mean that too: refused.
    if (filter.limit !== undefined && (!Number.isInteger(filter.limit) || filter.limit < 0)) {
      throw new RangeError(`page limit must be a non-negative integer, got ${filter.limit}`);
    }
    const limit = filter.limit ?? -1;
    const rows =
      filter.consumerId === undefined
        ? this.#conn.statement('SELECT * FROM endpoints WHERE org_id = ? AND env = ? AND id > ? ORDER BY id LIMIT ?').all(t.orgId, t.env, after, limit)
        : this.#conn
            .statement('SELECT * FROM endpoints WHERE org_id = ? AND env = ? AND consumer_id = ? AND id > ? ORDER BY id LIMIT ?')
            .all(t.orgId, t.env, filter.consumerId, after, limit);
    return rows.map(toEndpoint);
  }

  async update(t: Tenant, id: EndpointId, patch: EndpointPatch): Promise<Endpoint | null> {
    const sets = endpointPatchAssignments(patch);
    if (sets.length === 0 && patch.endHoldAt === undefined) return this.get(t, id);
    const assignments = sets.map(([column]) => `${column} = ?`).join(', ');
    return this.#conn.immediate(() => {
      if (!this.#exists(t, id)) return null;
      // The hold ends before the row is read back, so the endpoint returned has none.
      if (patch.endHoldAt !== undefined) endHold(this.#conn, id, patch.endHoldAt);
      if (patch.respaceAt !== undefined && patch.rateLimit !== undefined) respace(this.#conn, id, patch.respaceAt);
      const row =
        sets.length === 0
          ? this.#conn.statement(`SELECT * FROM endpoints WHERE ${TENANT_ID}`).get(t.orgId, t.env, id)
          : this.#conn
              .statement(`UPDATE endpoints SET ${assignments} WHERE ${TENANT_ID} RETURNING *`)
              .get(...sets.map(([, value]) => value), t.orgId, t.env, id);
      if (row === undefined) return null;
      // No longer ordered: its lanes let go of their waiting deliveries (a first batch here).
      if (patch.ordering === 'none') releaseLanes(this.#conn, id, ENDPOINT_WALK_BATCH);
      // Leaving `disabled` bounds its fail walk, a minute early for clocks: failing a new
      // delivery harms, sending an old one to the re-enabled endpoint does not.
      if (patch.status !== undefined && patch.changedAt !== undefined) endFailAt(this.#conn, id, patch.changedAt - START_SKEW_MS);
      // Open deliveries leave the due index while the endpoint is not active: the first batch
      // here, the rest by the walk (nothing is sent meanwhile: a claim wants an active
      // endpoint). Made active, a hold left is moot, and the resume's release is recorded here
      // (releaseHeld then does its first batch).
      if (patch.status !== undefined && patch.status !== 'active') {
        recordWalk(this.#conn, t, id, 'hold');
        walkBatch(this.#conn, id, NO_RELEASE, ENDPOINT_WALK_BATCH);
      } else if (patch.status === 'active') {
        dropHold(this.#conn, id);
        if (patch.releaseHeldSince !== undefined) recordWalk(this.#conn, t, id, 'release', patch.releaseHeldSince);
      }
      return toEndpoint(row);
    });
  }

  async delete(t: Tenant, id: EndpointId): Promise<boolean> {
    return this.#conn.immediate(() => {
      // SQLite has one writer: a message or a completion is wholly before this (its delivery
      // is open, and the walk fails it) or wholly after (it finds no endpoint). Its open
      // deliveries fail: the first batch here, the rest by the walk (a claim finds no
      // endpoint for them meanwhile, so none is sent).
      recordWalk(this.#conn, t, id, 'fail');
      // Explicit rather than left to ON DELETE CASCADE, which only fires on connections
      // that enabled foreign keys.
      this.#conn.statement(`DELETE FROM endpoint_secrets WHERE endpoint_id IN (SELECT id FROM endpoints WHERE ${TENANT_ID})`).run(t.orgId, t.env, id);
      const { changes } = this.#conn.statement(`DELETE FROM endpoints WHERE ${TENANT_ID}`).run(t.orgId, t.env, id);
      if (Number(changes) === 0) {
        forgetWalk(this.#conn, id);
        return false;
      }
      forgetRecentAttempts(this.#conn, id);
      walkBatch(this.#conn, id, NO_RELEASE, ENDPOINT_WALK_BATCH);
      return true;
    });
  }

  async rotateSecret(t: Tenant, id: EndpointId, secret: StoredSecret, now: number, oldValidUntil: number, maxLive: number): Promise<boolean> {
    return this.#conn.immediate(() => {
      if (!this.#exists(t, id)) return false;
      // Secrets expired by now can never sign or verify again; dropping them here keeps
      // an endpoint's rows from growing with every rotation.
      this.#conn.statement('DELETE FROM endpoint_secrets WHERE endpoint_id = ? AND expires_at IS NOT NULL AND expires_at <= ?').run(id, now);
      this.#conn
        .statement('UPDATE endpoint_secrets SET expires_at = ? WHERE endpoint_id = ? AND (expires_at IS NULL OR expires_at > ?)')
        .run(oldValidUntil, id, oldValidUntil);
      // Room for the new one: the newest maxLive - 1 others stay, older ones end now.
      this.#conn
        .statement(
          `DELETE FROM endpoint_secrets WHERE endpoint_id = ? AND rowid IN (
             SELECT rowid FROM endpoint_secrets WHERE endpoint_id = ? AND (expires_at IS NULL OR expires_at > ?)
             ORDER BY created_at DESC, id DESC LIMIT -1 OFFSET ?)`,
        )
        .run(id, id, now, Math.max(0, maxLive - 1));
      this.#insertSecret(id, secret);
      return true;
    });
  }

  async listeners(after: EndpointId | null, limit: number): Promise<{ tenant: Tenant; id: EndpointId }[]> {
    // endpoints_listeners (partial: listeners only, covering): no http endpoint is read.
    return this.#conn
      .statement(`SELECT id, org_id, env FROM endpoints WHERE type = 'listen' AND id > ? ORDER BY id LIMIT ?`)
      .all(after ?? '', limit)
      .map((row) => ({ tenant: { orgId: text(row, 'org_id') as OrgId, env: text(row, 'env') as Environment }, id: text(row, 'id') as EndpointId }));
  }

  async certificatesExpiring(from: number, to: number, after: ExpiryCursor | null, limit: number): Promise<ExpiryWalkRow[]> {
    // endpoints_tls_expiry (partial: endpoints with a certificate, by notAfter then id): the cursor's
    // own millisecond by a seek of its ties, then the range after it — no tie is read twice. Each row
    // found is read for its tenant (SQLite takes no expression index as covering). The expression is the index's own.
    const row = (r: Row): ExpiryWalkRow => ({
      tenant: { orgId: text(r, 'org_id') as OrgId, env: text(r, 'env') as Environment },
      id: text(r, 'id') as EndpointId,
      notAfter: Number(r['not_after']),
    });
    const ties =
      after !== null && after.notAfter >= from && after.notAfter < to
        ? this.#conn
            .statement(
              `SELECT id, org_id, env, ${EXPIRY} AS not_after FROM endpoints
                WHERE tls IS NOT NULL AND ${EXPIRY} = ? AND id > ? ORDER BY id LIMIT ?`,
            )
            .all(after.notAfter, after.id, limit)
            .map(row)
        : [];
    if (ties.length >= limit) return ties;
    const start = after === null ? from : Math.max(from, after.notAfter + 1);
    const rest = this.#conn
      .statement(
        `SELECT id, org_id, env, ${EXPIRY} AS not_after FROM endpoints
          WHERE tls IS NOT NULL AND ${EXPIRY} >= ? AND ${EXPIRY} < ? ORDER BY ${EXPIRY}, id LIMIT ?`,
      )
      .all(start, to, limit - ties.length)
      .map(row);
    return [...ties, ...rest];
  }

  async certificatesExpiringOf(t: Tenant, from: number, to: number, limit: number): Promise<ExpiringCertificate[]> {
    // endpoints_tls_tenant_expiry (partial: endpoints with a certificate, by tenant, notAfter, id):
    // the tenant's range [from, to) in order, so its other endpoints and certificates are never read.
    return this.#conn
      .statement(
        `SELECT id, org_id, env, consumer_id, url, status, ${EXPIRY} AS not_after,
                json_extract(tls, '$.info.subject') AS subject, json_extract(tls, '$.info.fingerprintSha256') AS fingerprint, failing_since
           FROM endpoints
          WHERE org_id = ? AND env = ? AND tls IS NOT NULL AND ${EXPIRY} >= ? AND ${EXPIRY} < ?
          ORDER BY ${EXPIRY}, id LIMIT ?`,
      )
      .all(t.orgId, t.env, from, to, limit)
      .map(toExpiringCertificate);
  }

  async secrets(t: Tenant, id: EndpointId, now: number): Promise<StoredSecret[]> {
    return this.#conn
      .statement(
        `SELECT s.* FROM endpoint_secrets s JOIN endpoints e ON e.id = s.endpoint_id
         WHERE e.org_id = ? AND e.env = ? AND e.id = ? AND (s.expires_at IS NULL OR s.expires_at > ?)
         ORDER BY s.created_at DESC, s.id DESC`,
      )
      .all(t.orgId, t.env, id, now)
      .map(toStoredSecret);
  }

  #exists(t: Tenant, id: EndpointId): boolean {
    return this.#conn.statement(`SELECT 1 FROM endpoints WHERE ${TENANT_ID}`).get(t.orgId, t.env, id) !== undefined;
  }

  #insertSecret(endpointId: EndpointId, secret: StoredSecret): void {
    this.#conn
      .statement('INSERT INTO endpoint_secrets (endpoint_id, sealed, created_at, expires_at) VALUES (?, ?, ?, ?)')
      .run(endpointId, secret.sealed, secret.createdAt, secret.expiresAt);
  }
}

/** A row of the certificate-expiry reads. */
function toExpiringCertificate(row: Row): ExpiringCertificate {
  return {
    tenant: { orgId: text(row, 'org_id') as OrgId, env: text(row, 'env') as Environment },
    id: text(row, 'id') as EndpointId,
    consumerId: text(row, 'consumer_id') as ConsumerId,
    url: text(row, 'url'),
    status: text(row, 'status') as EndpointStatus,
    failingSince: intOrNull(row, 'failing_since'),
    subject: text(row, 'subject'),
    notAfter: Number(row['not_after']),
    fingerprintSha256: text(row, 'fingerprint'),
  };
}
