import {
  InvalidError,
  NotFoundError,
  type ConsumerId,
  type Endpoint,
  type EndpointId,
  type EndpointTransformation,
  type OrgId,
  type StoredSecret,
  type Tenant,
} from '@wirehook/core';
import type { EndpointPatch, EndpointRepo, ExpiringCertificate, ExpiryCursor, ExpiryWalkRow } from '../ports/endpoint-port.ts';
import { START_SKEW_MS } from '../ports/recovery-port.ts';
import type { ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import { endHold, respace } from './endpoint-put-off.ts';
import { firstDueOfEachMonth, noteDue, type DueNote } from './due-queue.ts';
import { dropHold, endFailAt, keepLanes, letGoOfLanes, recordWalk, REQUEST_WALK_BATCH, walkBatch } from './endpoint-walk.ts';
import type { EndpointDoc } from './documents.ts';
import { endpointPatchSet, rotateSecretsUpdate } from './endpoint-updates.ts';
import { endpointHeadersDoc, toEndpoint, validSecrets } from './mappers.ts';
import { ENDPOINTS_LIST_CAP, ENDPOINTS_PLANS as P } from './plans/endpoints.ts';
import { TENANCY_PLANS as TP } from './plans/tenancy.ts';
import { checkedLimit, scope } from './query.ts';
import { scheduleRecheck } from './held-recheck.ts';

// Secrets live inside the endpoint document; reads of the endpoint itself leave them out.
const WITHOUT_SECRETS = { projection: { secrets: 0 } } as const;
/** A hold or fail walk makes nothing due: its batch needs no time. */
const NO_RELEASE = 0;

/** Endpoints and their signing secrets in MongoDB, scoped by tenant. */
export class MongoEndpointRepo implements EndpointRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  /** @throws NotFoundError when the tenant has no such consumer; InvalidError at the cap. */
  async create(t: Tenant, endpoint: Endpoint, secret: StoredSecret, maxPerConsumer: number): Promise<Endpoint> {
    const doc: EndpointDoc = { ...endpointFields(endpoint), _id: endpoint.id, ...scope(t), secrets: [{ ...secret }] };
    return this.#conn.transaction(async (session) => {
      // The conditional increment is the cap: racing creates all write this one consumer
      // document, so they serialise, and none passes once the count is at the cap.
      const capped = TP.consumerBelowCap(t, endpoint.consumerId, maxPerConsumer);
      const counted = await this.#conn.consumers.updateOne(capped.filter, { $inc: { endpointCount: 1 } }, { ...capped.options, session });
      if (counted.matchedCount === 0) {
        const q = TP.consumerById(t, endpoint.consumerId);
        const consumer = await this.#conn.consumers.findOne(q.filter, { ...q.options, session });
        if (consumer === null) throw new NotFoundError(`consumer ${endpoint.consumerId} not found`);
        throw new InvalidError(`consumer ${endpoint.consumerId} already has ${consumer.endpointCount} endpoints; the limit is ${maxPerConsumer}`);
      }
      await this.#conn.endpoints.insertOne(doc, { session });
      return toEndpoint(doc);
    });
  }

  async get(t: Tenant, id: EndpointId): Promise<Endpoint | null> {
    const q = P.byId(t, id);
    const doc = await this.#conn.endpoints.findOne(q.filter, { ...q.options, ...WITHOUT_SECRETS });
    return doc === null ? null : toEndpoint(doc);
  }

  async listeners(after: EndpointId | null, limit: number): Promise<{ tenant: Tenant; id: EndpointId }[]> {
    if (checkedLimit(limit) === 0) return [];
    // Covered by endpoints_listeners (listeners only): no document, no http endpoint is read.
    const q = P.listenersAfter(after);
    const docs = await this.#conn.endpoints
      .find(q.filter, { ...q.options, projection: { _id: 1, orgId: 1, env: 1 } })
      .limit(limit)
      .toArray();
    return docs.map((d) => ({ tenant: { orgId: d.orgId as OrgId, env: d.env }, id: d._id as EndpointId }));
  }

  async certificatesExpiring(from: number, to: number, after: ExpiryCursor | null, limit: number): Promise<ExpiryWalkRow[]> {
    if (checkedLimit(limit) === 0) return [];
    // Covered by endpoints_tls_expiry (notAfter, _id, orgId, env): keys only, never a document.
    const projection = { _id: 1, orgId: 1, env: 1, 'tls.info.notAfter': 1 };
    const read = async (q: { filter: object; options: object }, n: number) =>
      (
        await this.#conn.endpoints
          .find(q.filter, { ...q.options, projection })
          .limit(n)
          .toArray()
      ).map((d) => ({
        tenant: { orgId: d.orgId as OrgId, env: d.env },
        id: d._id as EndpointId,
        notAfter: d.tls?.info.notAfter ?? 0,
      }));
    // The cursor's own millisecond first (a seek of its ties), then the range after it.
    const ties = after !== null && after.notAfter >= from && after.notAfter < to ? await read(P.certificatesExpiringTies(after.notAfter, after.id), limit) : [];
    if (ties.length >= limit) return ties;
    const start = after === null ? from : Math.max(from, after.notAfter + 1);
    return [...ties, ...(await read(P.certificatesExpiringFrom(start, to), limit - ties.length))];
  }

  async certificatesExpiringOf(t: Tenant, from: number, to: number, limit: number): Promise<ExpiringCertificate[]> {
    if (checkedLimit(limit) === 0) return [];
    // endpoints_tls_tenant_expiry (the tenant's endpoints with a certificate, by notAfter then _id): its window only.
    const q = P.certificatesExpiringOf(t, from, to);
    const docs = await this.#conn.endpoints
      .find(q.filter, { ...q.options, projection: EXPIRING_FIELDS })
      .limit(limit)
      .toArray();
    return docs.map(toExpiringCertificate);
  }

  async hold(t: Tenant, id: EndpointId, until: number): Promise<void> {
    // $max: a shorter Retry-After answered later never cuts a longer hold short.
    const q = P.byId(t, id);
    await this.#conn.endpoints.updateOne(q.filter, { $max: { heldUntil: until } }, q.options);
  }

  async list(t: Tenant, filter: { consumerId?: ConsumerId; afterId?: EndpointId; limit?: number }): Promise<Endpoint[]> {
    // Bounded: a consumer's endpoints by the cap create holds, a tenant's page by its limit, at
    // most ENDPOINTS_LIST_CAP (the API pages the rest: GET /v1/endpoints' next_cursor).
    const limit = Math.min(checkedLimit(filter.limit ?? ENDPOINTS_LIST_CAP), ENDPOINTS_LIST_CAP);
    if (limit === 0) return [];
    const after = filter.afterId ?? '';
    const q = filter.consumerId === undefined ? P.ofTenant(t, after) : P.ofConsumer(t, filter.consumerId, after);
    const docs = await this.#conn.endpoints
      .find(q.filter, { ...q.options, ...WITHOUT_SECRETS })
      .limit(limit)
      .toArray();
    return docs.map(toEndpoint);
  }

  async update(t: Tenant, id: EndpointId, patch: EndpointPatch): Promise<Endpoint | null> {
    // a hold ends (a new URL, a resume) and a changed limit re-spaces what it put off.
    const respaceAt = patch.rateLimit !== undefined ? patch.respaceAt : undefined;
    const putOffAt = patch.endHoldAt ?? respaceAt;
    const set = { ...endpointPatchSet(patch), ...(patch.endHoldAt !== undefined ? { heldUntil: null } : {}) };
    if (Object.keys(set).length === 0) return this.get(t, id);
    const q = P.byId(t, id);
    const write = (session?: ClientSession) =>
      this.#conn.endpoints.findOneAndUpdate(q.filter, { $set: set }, { ...q.options, ...WITHOUT_SECRETS, returnDocument: 'after', session });
    // What a walk's first batch made due, noted once its transaction has committed (due-queue.ts).
    let due: DueNote[] = [];
    const doc =
      patch.status === undefined && patch.ordering === undefined && putOffAt === undefined
        ? await write()
        : // Open deliveries leave the due index while the endpoint is not active: the first batch
          // here, the rest by the walk (a claim wants an active endpoint meanwhile). Made
          // active, a hold left is moot; releaseHeld makes the held ones due.
          await this.#conn.transaction(async (session) => {
            due = [];
            // The endpoint as it stood, one read for both: the hold's end (what it put off is due at
            // exactly that time), and whether a resume finds it not active (sends that read it so
            // may still be committing: held-recheck.ts).
            const before =
              patch.endHoldAt !== undefined || patch.status === 'active'
                ? await this.#conn.endpoints.findOne(q.filter, { ...q.options, session, projection: { heldUntil: 1, status: 1 } })
                : null;
            const heldUntil = patch.endHoldAt === undefined ? null : (before?.heldUntil ?? null);
            const wasActive = patch.status === 'active' && before?.status === 'active';
            const updated = await write(session);
            if (updated !== null && patch.endHoldAt !== undefined)
              due.push(...(await endHold(this.#conn, session, t, id, patch.endHoldAt, heldUntil, REQUEST_WALK_BATCH)));
            if (updated !== null && respaceAt !== undefined) due.push(...(await respace(this.#conn, session, t, id, respaceAt)));
            // No longer ordered: its lanes let go of their waiting deliveries, the first batch here, the rest by its walk.
            if (updated !== null && patch.ordering === 'none')
              due.push(...(await letGoOfLanes(this.#conn, session, t, id, REQUEST_WALK_BATCH, updated.status !== 'active')));
            // Ordered again: what its walk had left to let go of stays in its lanes.
            else if (updated !== null && patch.ordering !== undefined) await keepLanes(this.#conn, session, id);
            if (patch.status === undefined) return updated;
            // Leaving `disabled` bounds its fail walk, a minute early for clocks (see the SQLite adapter).
            if (updated !== null && patch.changedAt !== undefined) await endFailAt(this.#conn, session, id, patch.changedAt - START_SKEW_MS);
            if (updated !== null && patch.status !== 'active') {
              await recordWalk(this.#conn, session, t, id, 'hold');
              due.push(...(await walkBatch(this.#conn, session, id, NO_RELEASE, REQUEST_WALK_BATCH)).due);
            } else if (updated !== null) {
              await dropHold(this.#conn, session, id);
              if (patch.releaseHeldSince !== undefined) {
                await recordWalk(this.#conn, session, t, id, 'release', patch.releaseHeldSince);
                // A send that read it paused may still commit a held delivery after this walk: it runs again.
                if (!wasActive) await scheduleRecheck(this.#conn, session, t, id, { heldSince: patch.releaseHeldSince }, Date.now());
              }
            }
            return updated;
          });
    await noteDue(this.#conn, due);
    // Active again: whatever of it is due and unheld (a hold walk left unfinished, a claim given
    // back meanwhile) is told to the due queue now, not when a sweep put it aside 5 s ends.
    if (doc !== null && patch.status === 'active') {
      await noteDue(this.#conn, await firstDueOfEachMonth(this.#conn, t, id));
    }
    return doc === null ? null : toEndpoint(doc);
  }

  async delete(t: Tenant, id: EndpointId): Promise<boolean> {
    const deleted = await this.#conn.transaction(async (session) => {
      const q = P.byId(t, id);
      const gone = await this.#conn.endpoints.findOneAndDelete(q.filter, { ...q.options, session, projection: { consumerId: 1, status: 1 } });
      if (gone === null) return { deleted: false, due: [] as DueNote[] };
      // A send that read it paused may still commit a held delivery after the fail walk: it runs again (held-recheck.ts).
      if (gone.status !== 'active') await scheduleRecheck(this.#conn, session, t, id, { fail: true }, Date.now());
      const consumer = TP.consumerById(t, gone.consumerId);
      await this.#conn.consumers.updateOne(consumer.filter, { $inc: { endpointCount: -1 } }, { ...consumer.options, session });
      // Its open deliveries fail: the first batch in this transaction, the rest by the walk.
      // The walk also catches a message whose transaction read the endpoint before the
      // delete committed and inserted its delivery after (snapshot isolation allows that
      // write skew); a claim finds no endpoint for any of them meanwhile.
      await recordWalk(this.#conn, session, t, id, 'fail');
      const { due } = await walkBatch(this.#conn, session, id, NO_RELEASE, REQUEST_WALK_BATCH);
      return { deleted: true, due };
    });
    await noteDue(this.#conn, deleted.due);
    return deleted.deleted;
  }

  async rotateSecret(t: Tenant, id: EndpointId, secret: StoredSecret, now: number, oldValidUntil: number, maxLive: number): Promise<boolean> {
    const q = P.byId(t, id);
    const result = await this.#conn.endpoints.updateOne(q.filter, rotateSecretsUpdate(secret, now, oldValidUntil, maxLive), q.options);
    return result.matchedCount > 0;
  }

  async transformation(t: Tenant, id: EndpointId): Promise<EndpointTransformation | null> {
    // Plan endpoints.byId (_id_, 1 document), the transformation alone: once per change of the code per dispatcher.
    const q = P.byId(t, id);
    const doc = await this.#conn.endpoints.findOne(q.filter, { ...q.options, projection: { transformation: 1 } });
    return doc?.transformation ?? null;
  }

  async secrets(t: Tenant, id: EndpointId, now: number): Promise<StoredSecret[]> {
    const q = P.byId(t, id);
    const doc = await this.#conn.endpoints.findOne(q.filter, { ...q.options, projection: { secrets: 1 } });
    return doc === null ? [] : validSecrets(doc.secrets, now);
  }
}

/** The endpoint's own fields as stored (no id, tenant or secrets). */
function endpointFields(e: Endpoint): Omit<EndpointDoc, '_id' | 'orgId' | 'env' | 'secrets'> {
  return {
    consumerId: e.consumerId,
    url: e.url,
    description: e.description,
    eventTypes: e.eventTypes,
    fixedIp: e.fixedIp,
    status: e.status,
    disabledReason: e.disabledReason,
    failingSince: e.failingSince,
    createdAt: e.createdAt,
    retry: e.retry,
    compatSignature: e.compatSignature,
    ordering: e.ordering ?? 'none',
    rateLimit: e.rateLimit ?? null,
    heldUntil: null,
    type: e.type ?? 'http',
    headers: e.headers ? endpointHeadersDoc(e.headers) : null,
    tls: e.tls ?? null,
    auth: e.auth ?? null,
    transformation: e.transformation ?? null,
  };
}

/** What a certificate-expiry read takes of an endpoint: not the certificate text or the sealed key, only what the API shows. */
const EXPIRING_FIELDS = { _id: 1, orgId: 1, env: 1, consumerId: 1, url: 1, status: 1, failingSince: 1, 'tls.info': 1 } as const;

function toExpiringCertificate(d: Pick<EndpointDoc, '_id' | 'orgId' | 'env' | 'consumerId' | 'url' | 'status' | 'failingSince' | 'tls'>): ExpiringCertificate {
  return {
    tenant: { orgId: d.orgId as OrgId, env: d.env },
    id: d._id as EndpointId,
    consumerId: d.consumerId as ConsumerId,
    url: d.url,
    status: d.status,
    failingSince: d.failingSince ?? null,
    subject: d.tls?.info.subject ?? '',
    notAfter: d.tls?.info.notAfter ?? 0,
    fingerprintSha256: d.tls?.info.fingerprintSha256 ?? '',
  };
}
