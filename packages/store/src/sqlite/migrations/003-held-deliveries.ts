// Deliveries held by an endpoint that is not active (paused) leave the due index, so the
// sweeper's scan does not grow with every held delivery (100,000 held behind one paused
// endpoint used to be read on every sweep).
/** Schema step 3 (user_version 2 → 3); shipped, so never edited. */
export const heldDeliveries = `
  ALTER TABLE deliveries ADD COLUMN held INTEGER NOT NULL DEFAULT 0 CHECK (held IN (0, 1));
  UPDATE deliveries SET held = 1
    WHERE status IN ('pending', 'retrying')
      AND NOT EXISTS (SELECT 1 FROM endpoints e WHERE e.id = deliveries.endpoint_id AND e.status = 'active');
  DROP INDEX deliveries_due;
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying') AND held = 0;
  `;
