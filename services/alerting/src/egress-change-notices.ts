import { newNoticeId, type AlertTargetId, type Clock, type OrgId } from '@wirehook/core';
import type { NoticeDelivery, Store } from '@wirehook/store';
import { egressIpsContent } from './notice-content.ts';
import { OWNER } from './notice-outbox.ts';

/** Organizations told per step: each costs a seek and its targets' read. */
export const EGRESS_ORGS_PER_STEP = 100;
/**
 * A step ends after the organization that brings its notices to this many (targets are capped at
 * 20 per environment, but those made before the cap are not). The outbox sends them fairly: an
 * organization's fan-out takes only its own turns (notice-outbox.ts).
 */
export const EGRESS_NOTICES_PER_STEP = 200;

/**
 * Tells organizations of a change of the fixed IP pool (GET /v1/egress-ips), which the
 * gateway records at start. Told: every organization with a fixed_ip endpoint (the others'
 * customers allowlist nothing), at each of its targets, or — with none — at its owner's
 * e-mail; each notice carries the whole list. A step takes the next organizations after the
 * change's cursor (EGRESS_ORGS_PER_STEP, or fewer once EGRESS_NOTICES_PER_STEP notices are
 * reached) and queues their notices with the cursor's move, in one transaction: a crash
 * queues no one's twice and skips no one; a second replica that read the same cursor queues
 * nothing. The worker takes a step when the outbox had room (failure notices never wait
 * behind more than a step's notices), and at least once a minute.
 */
export async function tellEgressChange(deps: { store: Store; clock: Clock; canEmail: boolean }): Promise<void> {
  const { store } = deps;
  const change = await store.egressIps.pendingChange();
  if (change === null) return;
  const now = deps.clock.now();
  const orgs = await store.egressIps.fixedIpOrgs(change.cursor, EGRESS_ORGS_PER_STEP);
  const body = JSON.stringify(egressIpsContent(change, await store.egressIps.list(now), now));
  const notices: NoticeDelivery[] = [];
  let told = 0;
  while (told < orgs.length && notices.length < EGRESS_NOTICES_PER_STEP) {
    const orgId = orgs[told++]!;
    for (const targetId of await recipients(store, orgId, deps.canEmail)) {
      notices.push({ id: newNoticeId(), orgId, targetId, type: 'alert.egress_ips', body, createdAt: now });
    }
  }
  const done = orgs.length < EGRESS_ORGS_PER_STEP && told === orgs.length;
  await store.egressIps.advanceChange(change.id, change.cursor, orgs[told - 1] ?? change.cursor, done, notices);
}

/** An organization's targets of both environments; its owner's e-mail when it has none (and e-mail can go). */
async function recipients(store: Store, orgId: OrgId, canEmail: boolean): Promise<AlertTargetId[]> {
  const targets = [...(await store.alerts.targets({ orgId, env: 'live' })), ...(await store.alerts.targets({ orgId, env: 'test' }))];
  if (targets.length > 0) return targets.map((t) => t.id);
  return canEmail && (await store.orgs.get(orgId))?.ownerEmail ? [OWNER] : [];
}
