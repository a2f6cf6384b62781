import type { JobEndpoint } from '../ports/delivery-port.ts';
import type {
  ApiKey,
  Attempt,
  AttemptId,
  Consumer,
  ConsumerId,
  Delivery,
  DeliveryId,
  Endpoint,
  EndpointHeaders,
  EndpointId,
  EventType,
  EventTypeSummary,
  KeyId,
  Message,
  MessageId,
  Org,
  OrgId,
  StoredSecret,
} from '@wirehook/core';
import type { ConsumerRef, MessageHead } from '../ports/message-port.ts';
import type {
  ApiKeyDoc,
  AttemptDoc,
  ConsumerDoc,
  DeliveryDoc,
  EndpointDoc,
  EndpointHeadersDoc,
  EventTypeDoc,
  MessageDoc,
  OrgDoc,
  SecretDoc,
} from './documents.ts';

// Document → domain record, one function per collection. Each copies the domain fields
// only, so adapter fields (_id naming, leases, tenant fields, counters) never leak out.
// The casts to branded ids are safe because only this adapter writes the documents.

/** An `orgs` document. */
export function toOrg(doc: OrgDoc): Org {
  return { id: doc._id as OrgId, name: doc.name, plan: doc.plan, ownerEmail: doc.ownerEmail, createdAt: doc.createdAt };
}

/** An `api_keys` document. */
export function toApiKey(doc: ApiKeyDoc): ApiKey {
  return {
    id: doc._id as KeyId,
    orgId: doc.orgId as OrgId,
    env: doc.env,
    scopes: doc.scopes,
    createdAt: doc.createdAt,
    revokedAt: doc.revokedAt,
    expiresAt: doc.expiresAt,
  };
}

/** A `consumers` document, with the endpoint count it keeps. */
export function toConsumer(doc: ConsumerDoc): Consumer {
  return {
    id: doc._id as ConsumerId,
    externalId: doc.externalId,
    name: doc.name,
    createdAt: doc.createdAt,
    endpointCount: doc.endpointCount,
  };
}

/** The consumer of a message, as the message list and detail show it. */
export function toConsumerRef(doc: Pick<ConsumerDoc, '_id' | 'externalId' | 'name'>): ConsumerRef {
  return { id: doc._id as ConsumerId, externalId: doc.externalId, name: doc.name };
}

/** An endpoint without its secrets. */
export function toEndpoint(doc: Omit<EndpointDoc, 'secrets'>): Endpoint {
  return Object.assign(endpointFields(doc), { transformation: doc.transformation ?? null });
}

/**
 * An endpoint document read for a claimed delivery's job, its transformation's code projected
 * away (delivery-claim.ts): the transformation as a TransformationRef.
 */
export function toJobEndpoint(doc: Omit<EndpointDoc, 'secrets'>): JobEndpoint {
  const ref = doc.transformation;
  return Object.assign(endpointFields(doc), { transformation: ref ? { enabled: ref.enabled, sha256: ref.sha256 } : null });
}

/** Every field of an endpoint document but its secrets and transformation (toEndpoint's and toJobEndpoint's). */
function endpointFields(doc: Omit<EndpointDoc, 'secrets'>): Omit<Endpoint, 'transformation'> {
  return {
    id: doc._id as EndpointId,
    consumerId: doc.consumerId as ConsumerId,
    url: doc.url,
    description: doc.description,
    eventTypes: doc.eventTypes,
    fixedIp: doc.fixedIp,
    status: doc.status,
    disabledReason: doc.disabledReason,
    failingSince: doc.failingSince,
    createdAt: doc.createdAt,
    retry: doc.retry,
    compatSignature: doc.compatSignature,
    ordering: doc.ordering ?? 'none',
    rateLimit: doc.rateLimit ?? null,
    heldUntil: doc.heldUntil ?? null,
    type: doc.type ?? 'http',
    headers: doc.headers ? { sealed: doc.headers.sealed, shown: Object.fromEntries(doc.headers.shown) } : null,
    tls: doc.tls ?? null,
    auth: doc.auth ?? null,
  };
}

/** One entry of an endpoint's `secrets`. */
export function toStoredSecret(doc: SecretDoc): StoredSecret {
  return { sealed: doc.sealed, createdAt: doc.createdAt, expiresAt: doc.expiresAt };
}

/** The secrets valid at `now`, newest first (by creation, then the later added first). */
export function validSecrets(secrets: readonly SecretDoc[], now: number): StoredSecret[] {
  return secrets
    .map((secret, order) => ({ secret, order }))
    .filter(({ secret }) => secret.expiresAt === null || secret.expiresAt > now)
    .sort((a, b) => b.secret.createdAt - a.secret.createdAt || b.order - a.order)
    .map(({ secret }) => toStoredSecret(secret));
}

/** An `event_types` document. */
export function toEventType(doc: EventTypeDoc): EventType {
  return {
    ...eventTypeFields(doc),
    schema: doc.schemaJson == null ? null : (JSON.parse(doc.schemaJson) as Record<string, unknown>),
    examples: doc.examplesJson === undefined ? [] : (JSON.parse(doc.examplesJson) as unknown[]),
  };
}

/** A list's document (projected without the schema and examples text). */
export function toEventTypeSummary(doc: Omit<EventTypeDoc, 'schemaJson' | 'examplesJson'> & { hasSchema?: boolean }): EventTypeSummary {
  return { ...eventTypeFields(doc), hasSchema: doc.hasSchema === true };
}

function eventTypeFields(doc: Omit<EventTypeDoc, 'schemaJson' | 'examplesJson'>): Omit<EventType, 'schema' | 'examples'> {
  return {
    name: doc.name,
    description: doc.description,
    archivedAt: doc.archivedAt,
    createdAt: doc.createdAt,
    validation: doc.validation ?? 'none',
    deprecated: doc.deprecated ?? false,
    version: doc.version ?? 1,
    updatedAt: doc.updatedAt ?? doc.createdAt,
    versionAt: doc.versionAt ?? doc.createdAt,
    rev: doc.rev ?? 0,
  };
}

/** A `messages` document without its payload (the list never reads it). */
export function toMessageHead(doc: Omit<MessageDoc, 'payload'>): MessageHead {
  return {
    id: doc._id as MessageId,
    consumerId: doc.consumerId as ConsumerId,
    eventType: doc.eventType,
    idempotencyKey: doc.idempotencyKey,
    orderingKey: doc.orderingKey ?? null,
    createdAt: doc.createdAt,
    status: doc.status,
  };
}

/** A `messages` document with its payload (read from `message_bodies`: message-body.ts). */
export function toMessage(doc: MessageDoc, payload: string): Message {
  return { ...toMessageHead(doc), payload };
}

/** A `deliveries` document (the lease and lastAttemptAt stay inside). */
export function toDelivery(doc: DeliveryDoc): Delivery {
  return {
    id: doc._id as DeliveryId,
    messageId: doc.messageId as MessageId,
    endpointId: doc.endpointId as EndpointId,
    url: doc.url,
    status: doc.status,
    attemptCount: doc.attemptCount,
    policyAttempts: doc.policyAttempts,
    nextAttemptAt: doc.nextAttemptAt,
    manual: doc.manual,
    createdAt: doc.createdAt,
    orderingKey: doc.orderingKey ?? null,
    sequence: doc.sequence ?? null,
    laneWait: doc.laneWait ?? false,
    held: doc.held ?? false,
  };
}

/** Attempts newest first, as attempts_endpoint orders them (at, then _id, descending): a merge of several months' reads. */
export function newestFirst(a: Pick<AttemptDoc, '_id' | 'at'>, b: Pick<AttemptDoc, '_id' | 'at'>): number {
  return b.at - a.at || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);
}

/** An `attempts` document. */
export function toAttempt(doc: AttemptDoc): Attempt {
  return {
    id: doc._id as AttemptId,
    deliveryId: doc.deliveryId as DeliveryId,
    endpointId: doc.endpointId as EndpointId,
    at: doc.at,
    responseStatus: doc.responseStatus,
    responseHead: doc.responseHead,
    durationMs: doc.durationMs,
    error: doc.error,
    via: doc.via,
    sourceIp: doc.sourceIp,
    url: doc.url ?? null,
  };
}

/** EndpointHeaders as a document stores them: the shown names as pair values, never as field names. */
export function endpointHeadersDoc(headers: EndpointHeaders): EndpointHeadersDoc {
  return { sealed: headers.sealed, shown: Object.entries(headers.shown) };
}
