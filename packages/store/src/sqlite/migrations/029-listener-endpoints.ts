// Listener endpoints (`wirehook listen`): an endpoint's `type` (`http`, or `listen` for one a
// developer's CLI connection registered), and attempts sent over such a connection (`via`
// `listen`). SQLite cannot widen the CHECK on `attempts.via` in place, and rebuilding the table
// would copy every attempt under the write lock at the upgrade (minutes at 10^8 rows): such an
// attempt is stored as `via = 'direct'` with `via_listen = 1` instead, two ADD COLUMNs that
// rewrite nothing. A process of the previous build still running on the same file writes
// endpoints without a type (read as `http`) and attempts as before (`via_listen` 0).
/** Schema step 29 (user_version 28 → 29); shipped, so never edited. */
export const listenerEndpoints = `
  ALTER TABLE endpoints ADD COLUMN type TEXT NOT NULL DEFAULT 'http' CHECK (type IN ('http', 'listen'));
  ALTER TABLE attempts ADD COLUMN via_listen INTEGER NOT NULL DEFAULT 0 CHECK (via_listen IN (0, 1));
  `;
