import type { AlertTargetId, Clock, OrgId } from '@wirehook/core';
import type { NoticeDelivery, Store } from '@wirehook/store';
import { randomUUID } from 'node:crypto';
import { egressIpsContent } from './notice-content.ts';
import { OWNER } from './notice-outbox.ts';

/** Organizations told per step: each costs a seek and its targets' read. */
export const EGRESS_ORGS_PER_STEP = 100;

/**
 * Tells organizations of a change of the fixed IP pool (GET /v1/egress-ips), which the
 * gateway records at start. Told: every organization with a fixed_ip endpoint (the others'
 * customers allowlist nothing), at each of its targets, or — with none — at its owner's
 * e-mail. A step takes the next EGRESS_ORGS_PER_STEP organizations after the change's cursor
 * and queues their notices with the cursor's move, in one transaction: a crash tells no one
 * twice and no one never; a second replica that read the same cursor queues nothing.
 */
export async function tellEgressChange(deps: { store: Store; clock: Clock; canEmail: boolean }): Promise<void> {
  const { store } = deps;
  const change = await store.egressIps.pendingChange();
  if (change === null) return;
  const now = deps.clock.now();
  const orgs = await store.egressIps.fixedIpOrgs(change.cursor, EGRESS_ORGS_PER_STEP);
  const body = JSON.stringify(egressIpsContent(change, now));
  const notices: NoticeDelivery[] = [];
  for (const orgId of orgs) {
    for (const targetId of await recipients(store, orgId, deps.canEmail)) {
      notices.push({ id: `ntc_${randomUUID().replaceAll('-', '')}`, orgId, targetId, type: 'alert.egress_ips', body, createdAt: now });
    }
  }
  const done = orgs.length < EGRESS_ORGS_PER_STEP;
  await store.egressIps.advanceChange(change.id, change.cursor, orgs.at(-1) ?? change.cursor, done, notices);
}

/** An organization's targets of both environments; its owner's e-mail when it has none (and e-mail can go). */
async function recipients(store: Store, orgId: OrgId, canEmail: boolean): Promise<AlertTargetId[]> {
  const targets = [...(await store.alerts.targets({ orgId, env: 'live' })), ...(await store.alerts.targets({ orgId, env: 'test' }))];
  if (targets.length > 0) return targets.map((t) => t.id);
  return canEmail && (await store.orgs.get(orgId))?.ownerEmail ? [OWNER] : [];
}
