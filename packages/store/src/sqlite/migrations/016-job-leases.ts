// Work one replica does at a time (retention: every dispatcher used to delete the same
// chunk at once): a named lease per job.
/** Schema step 16 (user_version 15 → 16); shipped, so never edited. */
export const jobLeases = `
  CREATE TABLE job_leases (
    name        TEXT PRIMARY KEY,
    holder      TEXT NOT NULL,
    lease_until INTEGER NOT NULL
  ) STRICT;
  `;
