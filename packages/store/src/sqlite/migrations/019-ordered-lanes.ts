// Ordered delivery per key. An endpoint with `ordering = 'key'` sends the deliveries of
// messages sharing an ordering key one at a time, in acceptance order: a lane. The store is
// the arbiter (every dispatcher process and the recovery worker claim through it), so the
// rule lives here, not in a dispatcher's memory:
// - `delivery_lanes` keeps, per (endpoint, key), the next sequence to hand out and the lane's
//   head (the one delivery of the lane that may be claimed); the message's transaction
//   assigns the sequence and makes a new delivery the head or leaves it waiting.
// - A waiting delivery has `lane_wait = 1` and is out of both due indexes, so a lane of any
//   length costs the sweep nothing; `deliveries_lane_wait` finds a lane's next by sequence.
// - When a head ends (success, failed, or deleted by retention) the triggers below move the
//   head to the lane's next waiting delivery, in the same transaction as the change that
//   ended it. Triggers, not the repos' code, for the reason of step 18: every write that ends
//   a delivery (completions, walks, disables, deletes, retention) advances its lane without
//   having to remember to. Each advance is one seek of deliveries_lane_wait.
/** Schema step 19 (user_version 18 → 19); shipped, so never edited. */
export const orderedLanes = `
  ALTER TABLE endpoints ADD COLUMN ordering TEXT NOT NULL DEFAULT 'none' CHECK (ordering IN ('none', 'key'));
  ALTER TABLE messages ADD COLUMN ordering_key TEXT;
  ALTER TABLE deliveries ADD COLUMN ordering_key TEXT;
  ALTER TABLE deliveries ADD COLUMN sequence INTEGER;
  ALTER TABLE deliveries ADD COLUMN lane_wait INTEGER NOT NULL DEFAULT 0 CHECK (lane_wait IN (0, 1));
  CREATE TABLE delivery_lanes (
    endpoint_id   TEXT NOT NULL,
    ordering_key  TEXT NOT NULL,
    org_id        TEXT NOT NULL,
    env           TEXT NOT NULL,
    next_sequence INTEGER NOT NULL,
    head_id       TEXT,
    PRIMARY KEY (endpoint_id, ordering_key)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX delivery_lanes_open ON delivery_lanes (head_id) WHERE head_id IS NOT NULL;
  CREATE INDEX deliveries_lane_wait ON deliveries (endpoint_id, ordering_key, sequence)
    WHERE status IN ('pending', 'retrying') AND lane_wait = 1;
  DROP INDEX deliveries_due;
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying') AND held = 0 AND lane_wait = 0;
  DROP INDEX deliveries_endpoint_due;
  CREATE INDEX deliveries_endpoint_due ON deliveries (endpoint_id, next_attempt_at)
    WHERE status IN ('pending', 'retrying') AND held = 0 AND lane_wait = 0;
  CREATE TRIGGER deliveries_lane_end AFTER UPDATE OF status ON deliveries
    WHEN new.ordering_key IS NOT NULL AND old.status IN ('pending', 'retrying') AND new.status NOT IN ('pending', 'retrying') BEGIN
    UPDATE delivery_lanes SET head_id = (
        SELECT id FROM deliveries
        WHERE endpoint_id = new.endpoint_id AND ordering_key = new.ordering_key
          AND status IN ('pending', 'retrying') AND lane_wait = 1
        ORDER BY sequence LIMIT 1)
      WHERE endpoint_id = new.endpoint_id AND ordering_key = new.ordering_key AND head_id = new.id;
    UPDATE deliveries SET lane_wait = 0
      WHERE id = (SELECT head_id FROM delivery_lanes WHERE endpoint_id = new.endpoint_id AND ordering_key = new.ordering_key)
        AND lane_wait = 1;
  END;
  CREATE TRIGGER deliveries_lane_delete AFTER DELETE ON deliveries
    WHEN old.ordering_key IS NOT NULL AND old.status IN ('pending', 'retrying') BEGIN
    UPDATE delivery_lanes SET head_id = (
        SELECT id FROM deliveries
        WHERE endpoint_id = old.endpoint_id AND ordering_key = old.ordering_key
          AND status IN ('pending', 'retrying') AND lane_wait = 1
        ORDER BY sequence LIMIT 1)
      WHERE endpoint_id = old.endpoint_id AND ordering_key = old.ordering_key AND head_id = old.id;
    UPDATE deliveries SET lane_wait = 0
      WHERE id = (SELECT head_id FROM delivery_lanes WHERE endpoint_id = old.endpoint_id AND ordering_key = old.ordering_key)
        AND lane_wait = 1;
  END;
  `;
