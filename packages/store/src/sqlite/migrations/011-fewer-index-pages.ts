// Fewer pages written per message: each index entry a message, delivery or attempt adds
// or moves lands on a page of its own (one per tenant or endpoint of the moment), and the
// WAL takes every such page whole (wal-bench.ts measures it). A delivery's endpoint index
// keeps only what is read by endpoint: open deliveries (failing, holding, counting them)
// and failed ones (a recovery's snapshot), so a success leaves it rather than moving within
// it. The endpoint's attempts are keyed by endpoint id alone (unique on its own): smaller
// entries, fewer page splits. (The message status index keeps its successes: without
// them a list of successes walked the tenant's whole history.)
/** Schema step 11 (user_version 10 → 11); shipped, so never edited. */
export const fewerIndexPages = `
  DROP INDEX deliveries_endpoint_status;
  CREATE INDEX deliveries_endpoint_open ON deliveries (org_id, env, endpoint_id, status) WHERE status IN ('pending', 'retrying');
  CREATE INDEX deliveries_endpoint_failed ON deliveries (org_id, env, endpoint_id) WHERE status = 'failed';
  DROP INDEX attempts_endpoint;
  CREATE INDEX attempts_endpoint ON attempts (endpoint_id, at DESC, id DESC);
  `;
