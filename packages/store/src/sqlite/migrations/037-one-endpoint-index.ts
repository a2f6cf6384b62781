// One index by endpoint on the hot path instead of two (issue 46). Every delivery entered, and
// on completion left, both deliveries_endpoint_due and deliveries_endpoint_open: two entries on
// pages of their own per endpoint of the moment, 20–25 % of the store where a batch spans many
// endpoints (docs/benchmarks.md, eleventh session). Now:
// - deliveries_endpoint_queue keeps every open delivery by (held, endpoint, lane_wait, due
//   time). `held` first: the fairness walk's skip scan over (0, endpoint) passes over a paused
//   endpoint's held deliveries without a seek. Its reads: the fairness walk and the put-offs
//   (0, endpoint, 0, due); a hold walk (0, endpoint) and a release walk (1, endpoint). The old
//   open index led with the tenant, so a hold walk, which names the endpoint alone, scanned all
//   of it.
// - deliveries_endpoint_aged keeps by creation only the open deliveries due at another time
//   than their creation, retrying, held or waiting in a lane — none on the hot path (a delivery
//   is created due at its creation, then succeeds). With the queue index it answers an
//   endpoint's oldest open delivery and a fail walk's bound: every other open delivery is due
//   at its creation (endpoint-stats-repo.ts, endpoint-walk.ts).
// deliveries_endpoint_held is the queue index's (1, endpoint) range, so it goes too.
/** Schema step 37 (user_version 36 → 37); shipped, so never edited. */
export const oneEndpointIndex = `
  DROP INDEX deliveries_endpoint_due;
  DROP INDEX deliveries_endpoint_open;
  DROP INDEX deliveries_endpoint_held;
  CREATE INDEX deliveries_endpoint_queue ON deliveries (held, endpoint_id, lane_wait, next_attempt_at)
    WHERE status IN ('pending', 'retrying');
  CREATE INDEX deliveries_endpoint_aged ON deliveries (endpoint_id, created_at)
    WHERE status IN ('pending', 'retrying') AND (status = 'retrying' OR held = 1 OR lane_wait = 1 OR next_attempt_at IS NOT created_at);
  `;
