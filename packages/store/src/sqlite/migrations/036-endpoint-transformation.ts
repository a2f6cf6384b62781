// Endpoints' transformations (issue 45), in two columns: transformation_ref, the JSON of core's
// TransformationRef (`{ enabled, sha256 }`), which a claimed delivery's job reads; and, last,
// transformation_code, the customer's JavaScript (up to 32,768 bytes), which only the API's reads
// and a dispatcher's read of a changed code take. A job's reads name their columns and stop before
// the code: a record's trailing column in overflow pages is never read for them. NULL: none. No
// index: read with its endpoint, never searched. endpoint_rollups gains the `transformation` class
// (an attempt whose transformation failed; nothing was sent); the rows of earlier buckets count
// none. ADD COLUMN rewrites no row.
/** Schema step 36 (user_version 35 → 36); shipped, so never edited. */
export const endpointTransformation = `
  ALTER TABLE endpoints ADD COLUMN transformation_ref TEXT;
  ALTER TABLE endpoints ADD COLUMN transformation_code TEXT;
  ALTER TABLE endpoint_rollups ADD COLUMN transformation INTEGER NOT NULL DEFAULT 0;
  `;
