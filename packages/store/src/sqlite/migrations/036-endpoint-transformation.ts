// Endpoints' transformations (issue 45): the JSON of core's EndpointTransformation (`{ code,
// enabled }`: the customer's JavaScript, at most 32,768 bytes, and whether it runs); NULL: none.
// No index: it is read with its endpoint, never searched. endpoint_rollups gains the
// `transformation` class (an attempt whose transformation failed; nothing was sent); the rows of
// earlier buckets count none. ADD COLUMN rewrites no row.
/** Schema step 36 (user_version 35 → 36); shipped, so never edited. */
export const endpointTransformation = `
  ALTER TABLE endpoints ADD COLUMN transformation TEXT;
  ALTER TABLE endpoint_rollups ADD COLUMN transformation INTEGER NOT NULL DEFAULT 0;
  `;
