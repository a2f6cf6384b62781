// The fixed IP pool as last seen (GET /v1/egress-ips): an address taken out of
// RELAY_SOURCE_IPS stays listed with its retiring_at for a notice period.
/** Schema step 20 (user_version 19 → 20); shipped, so never edited. */
export const egressIps = `
  CREATE TABLE egress_ips (
    ip          TEXT PRIMARY KEY,
    family      INTEGER NOT NULL CHECK (family IN (4, 6)),
    added_at    INTEGER NOT NULL,
    retiring_at INTEGER
  ) STRICT;
  `;
