// Organizations, API keys, consumers, endpoints with their signing secrets, event types.
/** Schema step 1 (user_version 0 → 1); shipped, so never edited. */
export const accountTables = `
  CREATE TABLE orgs (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    plan        TEXT NOT NULL,
    owner_email TEXT,
    created_at  INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs (id),
    env        TEXT NOT NULL CHECK (env IN ('live', 'test')),
    key_hash   TEXT NOT NULL,
    scopes     TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER,
    expires_at INTEGER
  ) STRICT;
  CREATE UNIQUE INDEX api_keys_key_hash ON api_keys (key_hash);

  CREATE TABLE consumers (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs (id),
    env         TEXT NOT NULL CHECK (env IN ('live', 'test')),
    external_id TEXT NOT NULL,
    name        TEXT,
    created_at  INTEGER NOT NULL
  ) STRICT;
  CREATE UNIQUE INDEX consumers_external_id ON consumers (org_id, env, external_id);
  -- Paging by id within a tenant; also the target of the endpoints' tenant-wide foreign key.
  CREATE UNIQUE INDEX consumers_tenant_id ON consumers (org_id, env, id);

  CREATE TABLE endpoints (
    id               TEXT PRIMARY KEY,
    org_id           TEXT NOT NULL,
    env              TEXT NOT NULL CHECK (env IN ('live', 'test')),
    consumer_id      TEXT NOT NULL,
    url              TEXT NOT NULL,
    description      TEXT,
    event_types      TEXT,
    fixed_ip         INTEGER NOT NULL CHECK (fixed_ip IN (0, 1)),
    status           TEXT NOT NULL,
    disabled_reason  TEXT,
    failing_since    INTEGER,
    created_at       INTEGER NOT NULL,
    retry            TEXT NOT NULL,
    compat_signature TEXT,
    -- The consumer must be in the same org and environment as its endpoint.
    FOREIGN KEY (org_id, env, consumer_id) REFERENCES consumers (org_id, env, id)
  ) STRICT;
  CREATE INDEX endpoints_tenant_consumer ON endpoints (org_id, env, consumer_id, id);
  CREATE INDEX endpoints_tenant ON endpoints (org_id, env, id);

  CREATE TABLE endpoint_secrets (
    id          INTEGER PRIMARY KEY,
    endpoint_id TEXT NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
    sealed      TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER
  ) STRICT;
  CREATE INDEX endpoint_secrets_endpoint ON endpoint_secrets (endpoint_id, created_at);

  CREATE TABLE event_types (
    id          INTEGER PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs (id),
    env         TEXT NOT NULL CHECK (env IN ('live', 'test')),
    name        TEXT NOT NULL,
    description TEXT,
    archived_at INTEGER,
    created_at  INTEGER NOT NULL
  ) STRICT;
  CREATE UNIQUE INDEX event_types_name ON event_types (org_id, env, name);
  `;
