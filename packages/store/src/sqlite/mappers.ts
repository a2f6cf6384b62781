import type {
  ApiKey,
  CompatSignature,
  Consumer,
  ConsumerId,
  Endpoint,
  EndpointId,
  EndpointStatus,
  Environment,
  EventType,
  KeyId,
  Org,
  OrgId,
  PlanName,
  RetryPolicy,
  Scope,
  StoredSecret,
} from '@wirehook/core';
import { int, intOrNull, json, jsonOrNull, text, textOrNull, type Row } from './row.ts';

// Row → domain record, one function per table. The casts to branded and union types are
// safe because only these adapters write the rows, from values of those types.

/** An `orgs` row; `prefix` reads columns aliased in a join (e.g. `org_name`). */
export function toOrg(row: Row, prefix = ''): Org {
  return {
    id: text(row, `${prefix}id`) as OrgId,
    name: text(row, `${prefix}name`),
    plan: text(row, `${prefix}plan`) as PlanName,
    ownerEmail: textOrNull(row, `${prefix}owner_email`),
    createdAt: int(row, `${prefix}created_at`),
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

/** An `endpoints` row. */
export function toEndpoint(row: Row): Endpoint {
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
  };
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
  return {
    name: text(row, 'name'),
    description: textOrNull(row, 'description'),
    archivedAt: intOrNull(row, 'archived_at'),
    createdAt: int(row, 'created_at'),
  };
}
