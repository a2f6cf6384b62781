export * from './create-portal-app.ts';
export type { PortalDeps } from './deps.ts';
export * from './page.ts';
