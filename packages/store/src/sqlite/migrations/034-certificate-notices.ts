// The certificate-expiry notices (alert.certificate_expiring) list each tenant's endpoints whose
// client certificate expires within the window: endpoints_tls_tenant_expiry holds the endpoints
// with a certificate by tenant, then the certificate's notAfter, then id, so one notice's read
// is a range of the tenant's own certificates in the window, never its other endpoints.
// endpoints_tls_expiry (step 33) stays the walk that finds the tenants. Nothing is rewritten;
// the index is built once here.
/** Schema step 34 (user_version 33 → 34); shipped, so never edited. */
export const certificateNotices = `
  CREATE INDEX endpoints_tls_tenant_expiry ON endpoints (org_id, env, json_extract(tls, '$.info.notAfter'), id) WHERE tls IS NOT NULL;
  `;
