export * from './create-portal.ts';
export type { PortalDeps } from './deps.ts';
export * from './page.ts';
export { portalConfigSchema, type PortalConfig } from './config.ts';
