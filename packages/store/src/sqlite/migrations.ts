import type { DatabaseSync } from 'node:sqlite';
import { immediateTransaction } from './connection.ts';
import { accountTables } from './migrations/001-accounts.ts';
import { messageTables } from './migrations/002-messages.ts';
import { heldDeliveries } from './migrations/003-held-deliveries.ts';
import { deliveryFences } from './migrations/004-delivery-fences.ts';
import { sealingKeyChecks } from './migrations/005-sealing-key-checks.ts';
import { recoveryTables } from './migrations/006-recoveries.ts';
import { portalTokens } from './migrations/007-portal-tokens.ts';
import { alertConditions } from './migrations/008-alert-conditions.ts';
import { alertTargets } from './migrations/009-alert-targets.ts';
import { alertingEngine } from './migrations/010-alerting-engine.ts';
import { fewerIndexPages } from './migrations/011-fewer-index-pages.ts';
import { endpointWalks } from './migrations/012-endpoint-walks.ts';
import { alertEventCollapse } from './migrations/013-alert-event-collapse.ts';
import { recoveryCursor } from './migrations/014-recovery-cursor.ts';
import { attemptUrl } from './migrations/015-attempt-url.ts';
import { jobLeases } from './migrations/016-job-leases.ts';
import { endpointRollups } from './migrations/017-endpoint-rollups.ts';
import { retryingCounts } from './migrations/018-retrying-counts.ts';
import { orderedLanes } from './migrations/019-ordered-lanes.ts';
import { egressIps } from './migrations/020-egress-ips.ts';
import { endpointThroughput } from './migrations/021-endpoint-throughput.ts';
import { endpointOpenCounts } from './migrations/022-endpoint-open-counts.ts';
import { laneLastUsed } from './migrations/023-lane-last-used.ts';
import { egressChanges } from './migrations/024-egress-changes.ts';
import { endpointCounts } from './migrations/025-endpoint-counts.ts';
import { alertNoticesFair } from './migrations/026-alert-notices-fair.ts';
import { alertConditionsPerEnv } from './migrations/027-alert-conditions-per-env.ts';
import { holdEndWalk } from './migrations/028-hold-end-walk.ts';
import { listenerEndpoints } from './migrations/029-listener-endpoints.ts';
import { listenerJanitor } from './migrations/030-listener-janitor.ts';
import { endpointHeaders } from './migrations/031-endpoint-headers.ts';
import { endpointTls } from './migrations/032-endpoint-tls.ts';
import { endpointAuth } from './migrations/033-endpoint-auth.ts';
import { certificateNotices } from './migrations/034-certificate-notices.ts';
import { eventCatalog } from './migrations/035-event-catalog.ts';
import { endpointTransformation } from './migrations/036-endpoint-transformation.ts';
import { oneEndpointIndex } from './migrations/037-one-endpoint-index.ts';
import { holdEnds } from './migrations/038-hold-ends.ts';
import { endpointRecentAttempts } from './migrations/039-endpoint-recent-attempts.ts';

// Append only: step N (1-based) moves a database from user_version N-1 to N. Never edit a
// step that has shipped; add a new one, in a file of its own under migrations/.

/** The schema, as numbered steps; `PRAGMA user_version` records how many were applied. */
export const MIGRATIONS: readonly string[] = [
  accountTables,
  messageTables,
  heldDeliveries,
  deliveryFences,
  sealingKeyChecks,
  recoveryTables,
  portalTokens,
  alertConditions,
  alertTargets,
  alertingEngine,
  fewerIndexPages,
  endpointWalks,
  alertEventCollapse,
  recoveryCursor,
  attemptUrl,
  jobLeases,
  endpointRollups,
  retryingCounts,
  orderedLanes,
  egressIps,
  endpointThroughput,
  endpointOpenCounts,
  laneLastUsed,
  egressChanges,
  endpointCounts,
  alertNoticesFair,
  alertConditionsPerEnv,
  holdEndWalk,
  listenerEndpoints,
  listenerJanitor,
  endpointHeaders,
  endpointTls,
  endpointAuth,
  certificateNotices,
  eventCatalog,
  endpointTransformation,
  oneEndpointIndex,
  holdEnds,
  endpointRecentAttempts,
];

/**
 * Brings `db` up to the last of `steps` in one transaction, so a failed step leaves the
 * database as it was, and two processes opening one file at once migrate it once.
 * @returns how many steps were applied (0 when the database was current).
 * @throws Error when the database was made by a newer build (more steps than known).
 */
export function migrate(db: DatabaseSync, steps: readonly string[] = MIGRATIONS): number {
  return immediateTransaction(db, () => {
    const current = schemaVersion(db);
    if (current > steps.length) {
      throw new Error(`database schema version ${current} is newer than this build knows (${steps.length}); upgrade Wirehook to open it`);
    }
    for (const step of steps.slice(current)) db.exec(step);
    db.exec(`PRAGMA user_version = ${steps.length}`);
    return steps.length - current;
  });
}

/** The schema version recorded in `db` (`PRAGMA user_version`). */
export function schemaVersion(db: DatabaseSync): number {
  const row = db.prepare('PRAGMA user_version').get();
  const version = row?.['user_version'];
  if (typeof version !== 'number') throw new TypeError('PRAGMA user_version returned no number');
  return version;
}
