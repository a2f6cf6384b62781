// The event catalog (issue 45): an event type's JSON Schema and examples (JSON text; NULL and
// '[]' for the types made before), whether the API enforces it, whether it is deprecated, its
// version (1, one more each time the schema changes), when it last changed and when its version
// began, and a revision every change moves (an update's compare-and-set). Earlier schemas
// are kept in event_type_versions, keyed by the event type and version (a page of them is one
// range of that key, newest first). event_types_enforcing holds a tenant's enforcing types alone
// (the intake reads which names to check from it, never a schema). ADD COLUMN with a constant
// default rewrites no row.
/** Schema step 35 (user_version 34 → 35); shipped, so never edited. */
export const eventCatalog = `
  ALTER TABLE event_types ADD COLUMN schema TEXT;
  ALTER TABLE event_types ADD COLUMN examples TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE event_types ADD COLUMN validation TEXT NOT NULL DEFAULT 'none' CHECK (validation IN ('none', 'enforce'));
  ALTER TABLE event_types ADD COLUMN deprecated INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE event_types ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE event_types ADD COLUMN updated_at INTEGER;
  ALTER TABLE event_types ADD COLUMN version_at INTEGER;
  ALTER TABLE event_types ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE event_type_versions (
    org_id     TEXT NOT NULL,
    env        TEXT NOT NULL CHECK (env IN ('live', 'test')),
    name       TEXT NOT NULL,
    version    INTEGER NOT NULL,
    schema     TEXT,
    created_at INTEGER NOT NULL,
    retired_at INTEGER NOT NULL,
    PRIMARY KEY (org_id, env, name, version)
  ) STRICT;
  CREATE INDEX event_types_enforcing ON event_types (org_id, env, name, version) WHERE validation = 'enforce';
  `;
