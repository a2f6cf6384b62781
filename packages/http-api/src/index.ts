// The HTTP API: one home for what the gateway's /v1 and the portal's token API serve — routers,
// authentication and scopes, rate limits, presenters, error mapping, the OpenAPI document —
// and the one factory of its deps in cluster mode. The services are thin shells over it.
export { baseApp, publicApi, sendAhead } from './app.ts';
export { clusterApiDeps, type ClusterApiDeps } from './cluster-deps.ts';
export { apiEnv, type ApiConfig } from './config.ts';
export type { ApiDeps, PublicApiDeps } from './deps.ts';
export { authenticate, authOf, endpointInScope, requireScope, setAuth, type AuthContext } from './http/auth.ts';
export { errorHandler, notFound } from './http/errors.ts';
export { rateLimit } from './http/rate-limit.ts';
export { routeLabel } from './http/route-label.ts';
// The routers the portal serves under its link's token, besides the whole /v1 (publicApi).
export { egressIpsRouter } from './api/egress-ips.ts';
export { endpointsRouter } from './api/endpoints.ts';
export { catalogRulesOf } from './api/catalog-rules.ts';
export { eventTypesRouter } from './api/event-types.ts';
export { messagesRouter } from './api/messages.ts';
export { consumerJson } from './api/presenters.ts';
export { openApiDocument, openApiDocumentText } from './openapi/document.ts';
export { OPERATIONS, type Operation } from './openapi/operations.ts';
export { API_DOCS_PATHS, apiDocsRouter } from './openapi/routes.ts';
export { enteredFor } from './http/entered-for.ts';
export { LISTEN_CONSUMER, LISTENER_GONE_AFTER_MS, ListenServer, type ListenServerDeps } from './listen/listen-server.ts';
