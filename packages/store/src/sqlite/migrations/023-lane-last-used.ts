// Retention prunes ordered lanes: a lane row lives on after its last delivery is gone,
// so without pruning delivery_lanes grows with every key ever used. `last_used_at` is the
// creation time of the lane's last joining message (joinLane keeps the later of the two);
// the retention job removes lanes idle since before the retention cutoff, oldest first, on
// delivery_lanes_idle (pruneLanes). Lanes already there get the upgrade's time: none of them
// is pruned before a whole retention window has passed without a message for its key.
/** Schema step 23 (user_version 22 → 23); shipped, so never edited. */
export const laneLastUsed = `
  ALTER TABLE delivery_lanes ADD COLUMN last_used_at INTEGER NOT NULL DEFAULT 0;
  UPDATE delivery_lanes SET last_used_at = CAST(unixepoch('subsec') * 1000 AS INTEGER);
  CREATE INDEX delivery_lanes_idle ON delivery_lanes (last_used_at);
  `;
