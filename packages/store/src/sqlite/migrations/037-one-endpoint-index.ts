// One index by endpoint on the hot path instead of two (issue 46). Every delivery entered, and
// on completion left, both deliveries_endpoint_due and deliveries_endpoint_open: two entries on
// pages of their own per endpoint of the moment, 20–25 % of the store where a batch spans many
// endpoints (docs/benchmarks.md, eleventh session). Now:
// - deliveries_endpoint_queue keeps every open delivery by (endpoint, held, lane_wait, due
//   time): the fairness walk and the put-off reads seek (endpoint, 0, 0, due); a hold walk
//   (endpoint, 0), a release walk (endpoint, 1), a fail walk (endpoint). The old open index led
//   with the tenant, so a hold walk, which names the endpoint alone, scanned all of it.
// - deliveries_endpoint_aged keeps by creation only the open deliveries whose due time is not
//   their creation time or that are retrying, held or waiting in a lane — none on the hot path
//   (a delivery is created due at its creation, then succeeds). It answers an endpoint's oldest
//   open delivery with the queue index: every other open delivery is due at its creation, so
//   the first of (endpoint, 0, 0) in due order is the oldest of them (endpoint-stats-repo.ts).
// deliveries_endpoint_held is the queue index's (endpoint, 1) range, so it goes too.
/** Schema step 37 (user_version 36 → 37); shipped, so never edited. */
export const oneEndpointIndex = `
  DROP INDEX deliveries_endpoint_due;
  DROP INDEX deliveries_endpoint_open;
  DROP INDEX deliveries_endpoint_held;
  CREATE INDEX deliveries_endpoint_queue ON deliveries (endpoint_id, held, lane_wait, next_attempt_at)
    WHERE status IN ('pending', 'retrying');
  CREATE INDEX deliveries_endpoint_aged ON deliveries (endpoint_id, created_at)
    WHERE status IN ('pending', 'retrying') AND (status = 'retrying' OR held = 1 OR lane_wait = 1 OR next_attempt_at IS NOT created_at);
  `;
