import type { CompatSignature } from './schemas.ts';
import type { PlanName } from './plans.ts';
import type { RetryPolicy } from './retry-policy.ts';
import type { Environment, Scope } from './secrets.ts';
import type { ConsumerId, EndpointId, KeyId, OrgId } from './ids.ts';

// Domain records as the store hands them out. The API's JSON shapes are made from these
// by the gateway's presenters; store documents never leave their adapter.

/** The org and environment every tenant-owned record and store call is scoped to. */
export interface Tenant {
  orgId: OrgId;
  env: Environment;
}

export interface Org {
  id: OrgId;
  name: string;
  plan: PlanName;
  ownerEmail: string | null;
  createdAt: number;
}

export interface ApiKey {
  id: KeyId;
  orgId: OrgId;
  env: Environment;
  scopes: Scope[];
  createdAt: number;
  revokedAt: number | null;
  expiresAt: number | null;
}

export interface Consumer {
  id: ConsumerId;
  externalId: string;
  name: string | null;
  createdAt: number;
  endpointCount: number;
}

export const ENDPOINT_STATUSES = ['active', 'paused', 'disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

export interface Endpoint {
  id: EndpointId;
  consumerId: ConsumerId;
  url: string;
  description: string | null;
  /** null: every event type. */
  eventTypes: string[] | null;
  fixedIp: boolean;
  status: EndpointStatus;
  disabledReason: string | null;
  failingSince: number | null;
  createdAt: number;
  retry: RetryPolicy;
  compatSignature: CompatSignature | null;
}

/** A signing secret as stored: sealed by a SecretBox, valid until `expiresAt` (null: no end). */
export interface StoredSecret {
  sealed: string;
  createdAt: number;
  expiresAt: number | null;
}

export interface EventType {
  name: string;
  description: string | null;
  archivedAt: number | null;
  createdAt: number;
}
