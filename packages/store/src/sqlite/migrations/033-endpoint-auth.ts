// Endpoints' OAuth 2.0 client credentials: the JSON of core's EndpointAuth (`{ type, tokenUrl,
// clientId, sealedSecret, scope, audience, tokenAuthMethod }`: the client secret sealed by the
// SecretBox, bound to the endpoint id; the rest public); NULL: none. endpoints_auth is the sealing
// walk's (`secrets reseal`, column endpoint_auth_secrets): endpoints with credentials only, by id.
// endpoints_tls_expiry is the certificate-expiry notices' walk: endpoints with a client
// certificate by its notAfter, then id, so a walk reads the certificates expiring in its window
// and no other. endpoint_rollups gains the `auth` class (an attempt whose token could not be had); the
// rows of earlier buckets count none. ADD COLUMN rewrites no row; the indexes are built once here.
/** Schema step 33 (user_version 32 → 33); shipped, so never edited. */
export const endpointAuth = `
  ALTER TABLE endpoints ADD COLUMN auth TEXT;
  CREATE INDEX endpoints_auth ON endpoints (id) WHERE auth IS NOT NULL;
  CREATE INDEX endpoints_tls_expiry ON endpoints (json_extract(tls, '$.info.notAfter'), id) WHERE tls IS NOT NULL;
  ALTER TABLE endpoint_rollups ADD COLUMN auth INTEGER NOT NULL DEFAULT 0;
  `;
