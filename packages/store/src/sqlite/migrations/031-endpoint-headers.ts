// Endpoints' custom headers, sent with every webhook to them: the JSON of core's EndpointHeaders
// (`{ sealed, shown }`: the values sealed together by the SecretBox, bound to the endpoint id, and
// what the API shows of each); NULL: none. An ADD COLUMN of a nullable column rewrites no row. The
// sealing walk (`secrets reseal`, column endpoint_headers) pages the endpoints that have headers by
// id: a partial index of those alone, so a page never reads an endpoint without headers. A process
// of the previous build still running on the same file writes endpoints without headers (NULL).
/** Schema step 31 (user_version 30 → 31); shipped, so never edited. */
export const endpointHeaders = `
  ALTER TABLE endpoints ADD COLUMN headers TEXT;
  CREATE INDEX endpoints_headers ON endpoints (id) WHERE headers IS NOT NULL;
  `;
