export { createGateway } from './create-gateway.ts';
export type { GatewayDeps } from './deps.ts';
export { gatewayConfigSchema, type GatewayConfig } from './config.ts';
export { egressIpSync } from './egress-ip-sync.ts';
