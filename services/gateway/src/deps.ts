import type { PublicApiDeps } from '@wirehook/http-api';

/** Everything the gateway needs: the public API's deps (packages/http-api), built by a composition root and handed in. */
export type GatewayDeps = PublicApiDeps;
