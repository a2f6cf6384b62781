export { baseApp, createGateway } from './create-gateway.ts';
export type { GatewayDeps } from './deps.ts';
export { authOf, endpointInScope, requireScope, setAuth, type AuthContext } from './http/auth.ts';
export { errorHandler, notFound } from './http/errors.ts';
export { rateLimit } from './http/rate-limit.ts';
// The /v1 routes the portal also serves, under its link's token (services/portal).
export { egressIpsRouter } from './api/egress-ips.ts';
export { endpointsRouter } from './api/endpoints.ts';
export { eventTypesRouter } from './api/event-types.ts';
export { messagesRouter } from './api/messages.ts';
export { consumerJson } from './api/presenters.ts';
export { gatewayConfigSchema, type GatewayConfig } from './config.ts';
export { egressIpSync } from './egress-ip-sync.ts';
export { openApiDocument, openApiDocumentText } from './openapi/document.ts';
export { OPERATIONS, type Operation } from './openapi/operations.ts';
