import type { AlertConditions, Environment } from '@wirehook/core';
import type { TenantFields } from './documents.ts';

// The alerting engine's documents: conditions, targets, the outbox of events, the throttle
// state and the notices with their attempts (alert-settings-repo.ts).

/** An organization's alert conditions; `_id` is the org id. */
export interface AlertConditionsDoc {
  _id: string;
  conditions: AlertConditions;
  updatedAt: number;
}

/** A notice target of an organization. */
export interface AlertTargetDoc {
  _id: string;
  orgId: string;
  /** The environment whose notices it receives; absent on targets made before (live). */
  env?: Environment;
  type: 'webhook' | 'chat' | 'email';
  url: string | null;
  address: string | null;
  sealedSecret: string | null;
  createdAt: number;
}

/**
 * An alerting outbox event; `_id` is `orgId:seq`, `seq` its number in the organization's own
 * sequence (the `alert-events:<orgId>` counter): no counter document is shared by all tenants.
 */
export interface AlertEventDoc extends TenantFields {
  _id: string;
  seq: number;
  kind: 'failing' | 'exhausted' | 'disabled';
  endpointId: string;
  at: number;
  error: string | null;
  responseStatus: number | null;
  /** The delivery whose attempt wrote it (absent on events written before). */
  deliveryId?: string | null;
}

/** An organization's alerting throttle state; `_id` is the org id. */
export interface AlertStateDoc {
  _id: string;
  state: import('../ports/alert-settings-port.ts').AlertState;
  windowEnd: number | null;
  hasPending: boolean;
}

/** A notice queued for one target. */
export interface AlertNoticeDoc {
  _id: string;
  orgId: string;
  targetId: string;
  type: string;
  body: string;
  createdAt: number;
  attempts: number;
  nextAttemptAt: number | null;
  leaseUntil: number | null;
  /** The claim holding the lease (see AlertSettingsRepo.claimNotices). */
  claim?: string | null;
  sent: boolean;
}

/** One try at sending a notice. */
export interface AlertNoticeAttemptDoc {
  noticeId: string;
  orgId: string;
  targetId: string;
  type: string;
  at: number;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}
