import type { ApiDeps } from '@wirehook/http-api';

/**
 * Everything the portal's server needs, built by a composition root and handed in: the HTTP
 * API's deps (packages/http-api), as its token API serves the very /v1 routes under a link's
 * token. Portal links are made and e-mail targets set up through the gateway, never here.
 */
export type PortalDeps = ApiDeps;
