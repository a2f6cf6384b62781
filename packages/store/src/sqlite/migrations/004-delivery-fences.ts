// Leases become fences: every claim takes a larger lease_token, and a completion or release
// acts only with the current one. `resend`: a manual re-send was asked for while the
// delivery was being sent, so that send's completion keeps it due. The endpoint-ordered
// due index lets the sweeper take a few due deliveries from each endpoint (fairness).
/** Schema step 4 (user_version 3 → 4); shipped, so never edited. */
export const deliveryFences = `
  ALTER TABLE deliveries ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE deliveries ADD COLUMN resend INTEGER NOT NULL DEFAULT 0 CHECK (resend IN (0, 1));
  CREATE INDEX deliveries_endpoint_due ON deliveries (endpoint_id, next_attempt_at) WHERE status IN ('pending', 'retrying') AND held = 0;
  `;
