import type { GatewayDeps } from '@wirehook/gateway';

/**
 * Everything the portal's server needs, built by a composition root and handed in. Its API
 * serves the gateway's /v1 routes under a link's token, so it needs what they read: the
 * gateway's deps (one definition) but the two only the gateway's own routes use — portal
 * links are made and e-mail targets set up through the gateway, never through the portal.
 */
export type PortalDeps = Omit<GatewayDeps, 'portalPublicUrl' | 'emailConfigured'>;
