import type { AlertConditions, Environment } from '@wirehook/core';
import type { ObjectId } from 'mongodb';
import type { TenantFields } from './tenant-fields.ts';

// The alerting engine's documents: conditions, targets, the outbox of events, the throttle
// state and the notices with their attempts (alert-settings-repo.ts).
// Pruning: events leave the outbox when a step consumes them (commitStep); notices once done
// (sent, or given up) and attempts go by TTL indexes on a Date field, after these:

/** How long a done notice is kept (its `doneAt`): a week. Nothing reads a done notice; this is for an operator looking into one. */
export const NOTICES_KEPT_S = 7 * 24 * 3600;
/** How long a notice attempt is kept (its `atDate`): 30 days of a target's history (noticeAttempts). */
export const ATTEMPTS_KEPT_S = 30 * 24 * 3600;

/**
 * An environment's alert conditions; `_id` is `<org id>:<env>` (a document of the org id alone: an
 * organization's from before, read as both environments' until one is changed).
 */
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
 * An alerting outbox event; `_id` is `<orgId>:<endpointId>:<kind>` (one queued per endpoint and
 * kind: the collapse rule), `seq` its order in the organization's queue: the attempt's time.
 * (Events queued before were numbered from an `alert-events:<orgId>` counter, `_id`
 * `<orgId>:<seq>`: small numbers, so they come first.)
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
  /** When it was done (no attempt to come), for the TTL index (NOTICES_KEPT_S); absent while it has one, and on notices done before. */
  doneAt?: Date;
}

/** One try at sending a notice. */
export interface AlertNoticeAttemptDoc {
  /** `<notice id>:<claim>`: a try recorded again (after a failover) is kept once. ObjectIds on tries recorded before. */
  _id?: string | ObjectId;
  noticeId: string;
  orgId: string;
  targetId: string;
  type: string;
  at: number;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  /** `at` as a Date, for the TTL index (ATTEMPTS_KEPT_S); absent on attempts recorded before (kept). */
  atDate?: Date;
}
