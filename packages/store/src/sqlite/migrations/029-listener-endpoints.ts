// Listener endpoints (`wirehook listen`): an endpoint's `type` (`http`, or `listen` for one a
// developer's CLI connection registered), and attempts sent over such a connection (`via`
// `listen`). SQLite cannot widen a CHECK in place, so `attempts` is rebuilt with the same
// columns and indexes (nothing references it). A process of the previous build still running
// on the same file writes endpoints without a type (read as `http`) and attempts as before.
/** Schema step 29 (user_version 28 → 29); shipped, so never edited. */
export const listenerEndpoints = `
  ALTER TABLE endpoints ADD COLUMN type TEXT NOT NULL DEFAULT 'http' CHECK (type IN ('http', 'listen'));

  CREATE TABLE attempts_rebuilt (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL,
    env             TEXT NOT NULL CHECK (env IN ('live', 'test')),
    delivery_id     TEXT NOT NULL REFERENCES deliveries (id),
    endpoint_id     TEXT NOT NULL,
    at              INTEGER NOT NULL,
    response_status INTEGER,
    response_head   TEXT,
    duration_ms     INTEGER NOT NULL,
    error           TEXT,
    via             TEXT NOT NULL CHECK (via IN ('direct', 'relay', 'listen')),
    source_ip       TEXT,
    url             TEXT
  ) STRICT;
  INSERT INTO attempts_rebuilt (id, org_id, env, delivery_id, endpoint_id, at, response_status, response_head, duration_ms, error, via, source_ip, url)
    SELECT id, org_id, env, delivery_id, endpoint_id, at, response_status, response_head, duration_ms, error, via, source_ip, url FROM attempts;
  DROP TABLE attempts;
  ALTER TABLE attempts_rebuilt RENAME TO attempts;
  CREATE INDEX attempts_delivery ON attempts (delivery_id, at);
  CREATE INDEX attempts_endpoint ON attempts (endpoint_id, at DESC, id DESC);
  `;
