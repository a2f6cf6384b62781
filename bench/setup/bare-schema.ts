/**
 * The tables of a bare durable webhook pipeline, for the store bench's baseline
 * (bench/store-writes.ts) and the one-process floors (bench/floor/floor-store.ts): a message row,
 * a delivery row with its due index (and a lease, for a claim step), an attempt row with the
 * answer's head. WAL with an fsync at each commit, as Wirehook's store.
 */
export const BARE_PIPELINE_SCHEMA = `PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
  CREATE TABLE messages (id TEXT PRIMARY KEY, payload TEXT NOT NULL, created_at INTEGER NOT NULL);
  CREATE TABLE deliveries (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, endpoint_id TEXT NOT NULL, status TEXT NOT NULL,
                           next_attempt_at INTEGER, lease_until INTEGER);
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
  CREATE TABLE attempts (id TEXT PRIMARY KEY, delivery_id TEXT NOT NULL, at INTEGER NOT NULL, response_status INTEGER,
                         response_head TEXT);`;

/**
 * The cluster floor's (bench/floor/cluster-floor-process.ts) tables, shared by its processes in
 * one SQLite file as cluster mode's services share theirs here: the bare pipeline's, the event
 * type kept with the message (the dispatcher builds the webhook from the row), and the endpoints
 * (written by the gateway, matched by intake, read by the dispatcher at each claim).
 */
export const CLUSTER_FLOOR_SCHEMA = `${BARE_PIPELINE_SCHEMA}
  ALTER TABLE messages ADD COLUMN event_type TEXT NOT NULL DEFAULT '';
  CREATE TABLE endpoints (id TEXT PRIMARY KEY, consumer_id TEXT NOT NULL, url TEXT NOT NULL, secret BLOB NOT NULL,
                          removed INTEGER NOT NULL DEFAULT 0);
  CREATE INDEX endpoints_consumer ON endpoints (consumer_id) WHERE removed = 0;`;
