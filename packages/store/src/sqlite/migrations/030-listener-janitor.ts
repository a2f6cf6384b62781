// The listener janitor's page: every tenant's listener endpoints (`wirehook listen`) by id, so a
// listener left by a crashed process (no one to run its 60 s removal) is found and removed. A
// partial index: only listener endpoints are in it (a handful, developers' machines), so a page
// reads them alone, never the http endpoints around them; covering (id, org_id, env).
/** Schema step 30 (user_version 29 → 30); shipped, so never edited. */
export const listenerJanitor = `
  CREATE INDEX endpoints_listeners ON endpoints (id, org_id, env) WHERE type = 'listen';
  `;
