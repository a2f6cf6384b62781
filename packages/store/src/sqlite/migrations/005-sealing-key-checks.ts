// The key ring's check values: a known text sealed with each key that has sealed secrets
// here, so a process started with the wrong WIREHOOK_SECRET_KEY finds out at once.
/** Schema step 5 (user_version 4 → 5); shipped, so never edited. */
export const sealingKeyChecks = `
  CREATE TABLE sealing_key_checks (
    key_id     TEXT PRIMARY KEY,
    sealed     TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
  `;
