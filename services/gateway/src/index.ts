export { baseApp, createApp } from './app.ts';
export type { GatewayDeps } from './deps.ts';
export type { AuthContext } from './http/auth.ts';
export { portalApi } from './portal-api.ts';
export { PORTAL_SCOPES } from './http/auth.ts';
export { errorHandler, notFound } from './http/errors.ts';
export { clusterGatewayDeps } from './cluster-deps.ts';
export { gatewayConfigSchema, type GatewayConfig } from './config.ts';
