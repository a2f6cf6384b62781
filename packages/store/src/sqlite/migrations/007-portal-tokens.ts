// Portal link tokens, by hash: the token in the link is the only credential.
/** Schema step 7 (user_version 6 → 7); shipped, so never edited. */
export const portalTokens = `
  CREATE TABLE portal_tokens (
    hash         TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL,
    env          TEXT NOT NULL CHECK (env IN ('live', 'test')),
    consumer_id  TEXT NOT NULL,
    frame_origin TEXT,
    locale       TEXT CHECK (locale IN ('ja', 'en')),
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX portal_tokens_expiry ON portal_tokens (expires_at);
  `;
