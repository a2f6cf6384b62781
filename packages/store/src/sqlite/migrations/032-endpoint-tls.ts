// Endpoints' client certificates (mutual TLS): the JSON of core's EndpointTls (`{ certificate,
// sealedKey, serverCa, info }`: the private key sealed by the SecretBox, bound to the endpoint id;
// the rest public); NULL: none. An ADD COLUMN of a nullable column rewrites no row. The sealing
// walk (`secrets reseal`, column endpoint_tls_keys) pages the endpoints that have a certificate by
// id: a partial index of those alone, so a page never reads an endpoint without one. A process of
// the previous build still running on the same file writes endpoints without a certificate (NULL).
/** Schema step 32 (user_version 31 → 32); shipped, so never edited. */
export const endpointTls = `
  ALTER TABLE endpoints ADD COLUMN tls TEXT;
  CREATE INDEX endpoints_tls ON endpoints (id) WHERE tls IS NOT NULL;
  `;
