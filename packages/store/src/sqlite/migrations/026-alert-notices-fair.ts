// Fair notices and their pruning. The outbox claims round-robin by organization, then by
// target within one (alert-settings-repo.ts claimNotices): `alert_notices_org_due` finds the
// next organization after a cursor with a due notice, and that organization's next target's.
// A claim now moves a notice's next_attempt_at to the end of its lease (a leased notice is not
// due), so the old lease of a notice being sent moves there too. `alert_notices_done` and
// `alert_notice_attempts_at` let the alerting worker remove done notices and old tries a batch
// at a time, oldest first (they were never removed before). `alert_notices_due` stays: a claim's
// first look (is anything due at all?) is its first key, so an idle tick walks nothing.
/** Schema step 26 (user_version 25 → 26); shipped, so never edited. */
export const alertNoticesFair = `
  CREATE INDEX alert_notices_org_due ON alert_notices (org_id, target_id, next_attempt_at) WHERE next_attempt_at IS NOT NULL;
  UPDATE alert_notices SET next_attempt_at = lease_until
    WHERE next_attempt_at IS NOT NULL AND lease_until IS NOT NULL AND lease_until > next_attempt_at;
  CREATE INDEX alert_notices_done ON alert_notices (created_at) WHERE next_attempt_at IS NULL;
  CREATE INDEX alert_notice_attempts_at ON alert_notice_attempts (at);
  `;
