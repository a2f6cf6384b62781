export { createApp } from './app.ts';
export type { GatewayDeps } from './deps.ts';
export type { AuthContext } from './http/auth.ts';
