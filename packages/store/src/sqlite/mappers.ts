import type { JobEndpoint } from '../ports/delivery-port.ts';
import type {
  ApiKey,
  Attempt,
  AttemptId,
  AttemptVia,
  CompatSignature,
  Consumer,
  ConsumerId,
  Delivery,
  DeliveryId,
  DeliveryStatus,
  Endpoint,
  EndpointHeaders,
  EndpointAuth,
  EndpointTransformation,
  TransformationRef,
  EndpointId,
  EndpointOrdering,
  EndpointStatus,
  EndpointTls,
  EndpointType,
  Environment,
  EventType,
  EventTypeSummary,
  KeyId,
  Message,
  MessageId,
  Org,
  OrgId,
  PlanName,
  RetryPolicy,
  Scope,
  StoredSecret,
} from '@wirehook/core';
import type { ConsumerRef, MessageHead } from '../ports/message-port.ts';
import { int, intOrNull, json, jsonOrNull, text, textOrNull, type Row } from './row.ts';

// Row → domain record, one function per table. The casts to branded and union types are
// safe because only these adapters write the rows, from values of those types.

/** An `orgs` row. */
export function toOrg(row: Row): Org {
  return {
    id: text(row, 'id') as OrgId,
    name: text(row, 'name'),
    plan: text(row, 'plan') as PlanName,
    ownerEmail: textOrNull(row, 'owner_email'),
    createdAt: int(row, 'created_at'),
  };
}

/** An `api_keys` row. */
export function toApiKey(row: Row): ApiKey {
  return {
    id: text(row, 'id') as KeyId,
    orgId: text(row, 'org_id') as OrgId,
    env: text(row, 'env') as Environment,
    scopes: json<Scope[]>(row, 'scopes'),
    createdAt: int(row, 'created_at'),
    revokedAt: intOrNull(row, 'revoked_at'),
    expiresAt: intOrNull(row, 'expires_at'),
  };
}

/** A `consumers` row with its `endpoint_count` column. */
export function toConsumer(row: Row): Consumer {
  return {
    id: text(row, 'id') as ConsumerId,
    externalId: text(row, 'external_id'),
    name: textOrNull(row, 'name'),
    createdAt: int(row, 'created_at'),
    endpointCount: int(row, 'endpoint_count'),
  };
}

/** An `endpoints` row, its transformation with the code. */
export function toEndpoint(row: Row): Endpoint {
  return Object.assign(endpointFields(row), { transformation: transformationOf(row) });
}

/** An `endpoints` row read with JOB_ENDPOINT_COLUMNS (or all): the endpoint, its transformation without the code. */
export function toJobEndpoint(row: Row): JobEndpoint {
  return Object.assign(endpointFields(row), { transformation: jsonOrNull<TransformationRef>(row, 'transformation_ref') });
}

/** Every field of an `endpoints` row but its transformation (toEndpoint's and toJobEndpoint's). */
function endpointFields(row: Row): Omit<Endpoint, 'transformation'> {
  return {
    id: text(row, 'id') as EndpointId,
    consumerId: text(row, 'consumer_id') as ConsumerId,
    url: text(row, 'url'),
    description: textOrNull(row, 'description'),
    eventTypes: jsonOrNull<string[]>(row, 'event_types'),
    fixedIp: int(row, 'fixed_ip') === 1,
    status: text(row, 'status') as EndpointStatus,
    disabledReason: textOrNull(row, 'disabled_reason'),
    failingSince: intOrNull(row, 'failing_since'),
    createdAt: int(row, 'created_at'),
    retry: json<RetryPolicy>(row, 'retry'),
    compatSignature: jsonOrNull<CompatSignature>(row, 'compat_signature'),
    ordering: text(row, 'ordering') as EndpointOrdering,
    rateLimit: intOrNull(row, 'rate_limit'),
    heldUntil: intOrNull(row, 'held_until'),
    type: text(row, 'type') as EndpointType,
    headers: jsonOrNull<EndpointHeaders>(row, 'headers'),
    tls: jsonOrNull<EndpointTls>(row, 'tls'),
    auth: jsonOrNull<EndpointAuth>(row, 'auth'),
  };
}

/**
 * The columns of an `endpoints` row a claimed delivery's job reads: every one but
 * transformation_code (the last: a record's trailing column in overflow pages is not read).
 */
export const JOB_ENDPOINT_COLUMNS =
  'id, org_id, env, consumer_id, url, description, event_types, fixed_ip, status, disabled_reason, failing_since, created_at, retry, ' +
  'compat_signature, ordering, rate_limit, held_until, type, headers, tls, auth, transformation_ref';

/** A row's transformation (its transformation_ref and transformation_code), or null for none. */
export function transformationOf(row: Row): EndpointTransformation | null {
  const ref = jsonOrNull<TransformationRef>(row, 'transformation_ref');
  const code = row['transformation_code'];
  return ref === null || typeof code !== 'string' ? null : { ...ref, code };
}

/** The two columns of a transformation (ref, code): both NULL for none. */
export function transformationColumns(transformation: EndpointTransformation | null): [string | null, string | null] {
  if (transformation === null) return [null, null];
  return [JSON.stringify({ enabled: transformation.enabled, sha256: transformation.sha256 }), transformation.code];
}

/** An `endpoint_secrets` row. */
export function toStoredSecret(row: Row): StoredSecret {
  return {
    sealed: text(row, 'sealed'),
    createdAt: int(row, 'created_at'),
    expiresAt: intOrNull(row, 'expires_at'),
  };
}

/** An `event_types` row. */
export function toEventType(row: Row): EventType {
  const schema = textOrNull(row, 'schema');
  return {
    ...eventTypeFields(row),
    schema: schema === null ? null : (JSON.parse(schema) as Record<string, unknown>),
    examples: JSON.parse(text(row, 'examples')) as unknown[],
  };
}

/** A list's row (no schema or examples read). */
export function toEventTypeSummary(row: Row): EventTypeSummary {
  return { ...eventTypeFields(row), hasSchema: int(row, 'has_schema') === 1 };
}

function eventTypeFields(row: Row): Omit<EventType, 'schema' | 'examples'> {
  const createdAt = int(row, 'created_at');
  return {
    name: text(row, 'name'),
    description: textOrNull(row, 'description'),
    archivedAt: intOrNull(row, 'archived_at'),
    createdAt,
    validation: text(row, 'validation') as EventType['validation'],
    deprecated: int(row, 'deprecated') === 1,
    version: int(row, 'version'),
    // An event type made before the catalog last changed, and has had its version, since it was made.
    updatedAt: intOrNull(row, 'updated_at') ?? createdAt,
    versionAt: intOrNull(row, 'version_at') ?? createdAt,
    rev: int(row, 'rev'),
  };
}

/** A `messages` row without reading its payload. */
export function toMessageHead(row: Row): MessageHead {
  return {
    id: text(row, 'id') as MessageId,
    consumerId: text(row, 'consumer_id') as ConsumerId,
    eventType: text(row, 'event_type'),
    idempotencyKey: textOrNull(row, 'idempotency_key'),
    orderingKey: textOrNull(row, 'ordering_key'),
    createdAt: int(row, 'created_at'),
    status: text(row, 'status') as DeliveryStatus,
  };
}

/** A `messages` row. */
export function toMessage(row: Row): Message {
  return { ...toMessageHead(row), payload: text(row, 'payload') };
}

/** The consumer columns of a message joined with its consumer (`consumer_external_id`, `consumer_name`). */
export function toConsumerRef(row: Row): ConsumerRef {
  return {
    id: text(row, 'consumer_id') as ConsumerId,
    externalId: text(row, 'consumer_external_id'),
    name: textOrNull(row, 'consumer_name'),
  };
}

/** A `deliveries` row. */
export function toDelivery(row: Row): Delivery {
  return {
    id: text(row, 'id') as DeliveryId,
    messageId: text(row, 'message_id') as MessageId,
    endpointId: text(row, 'endpoint_id') as EndpointId,
    url: text(row, 'url'),
    status: text(row, 'status') as DeliveryStatus,
    attemptCount: int(row, 'attempt_count'),
    policyAttempts: int(row, 'policy_attempts'),
    nextAttemptAt: intOrNull(row, 'next_attempt_at'),
    manual: int(row, 'manual') === 1,
    createdAt: int(row, 'created_at'),
    orderingKey: textOrNull(row, 'ordering_key'),
    sequence: intOrNull(row, 'sequence'),
    // Read when the query selected them (`SELECT *`, `d.*`): what waiting_on is told from.
    ...(row['lane_wait'] === undefined ? {} : { laneWait: row['lane_wait'] === 1 }),
    ...(row['held'] === undefined ? {} : { held: row['held'] === 1 }),
  };
}

/** An `attempts` row. */
export function toAttempt(row: Row): Attempt {
  return {
    id: text(row, 'id') as AttemptId,
    deliveryId: text(row, 'delivery_id') as DeliveryId,
    endpointId: text(row, 'endpoint_id') as EndpointId,
    at: int(row, 'at'),
    responseStatus: intOrNull(row, 'response_status'),
    responseHead: textOrNull(row, 'response_head'),
    durationMs: int(row, 'duration_ms'),
    error: textOrNull(row, 'error'),
    // A listener's attempt is stored as 'direct' with via_listen (schema step 29).
    via: intOrNull(row, 'via_listen') === 1 ? 'listen' : (text(row, 'via') as AttemptVia),
    sourceIp: textOrNull(row, 'source_ip'),
    url: textOrNull(row, 'url'),
  };
}
