// @wirehook/client: a typed client for the Wirehook API, on the global fetch alone.
export { DEFAULT_BASE_URL, Wirehook, type WirehookOptions } from './client.ts';
export {
  ERROR_STATUS,
  isWirehookApiError,
  type NetworkFailure,
  type RequestTarget,
  WirehookApiError,
  type WirehookApiErrorOf,
  WirehookNetworkError,
} from './errors.ts';
export { idempotencyKey } from './idempotency-key.ts';
export { type ClientMethodPath, OPERATION_METHODS, type OperationId } from './operations.ts';
export { type Page, paginate } from './paging.ts';
export type { RateLimit } from './rate-limit.ts';
export { Alerts } from './resources/alerts.ts';
export { Consumers } from './resources/consumers.ts';
export { Deliveries } from './resources/deliveries.ts';
export { Endpoints } from './resources/endpoints.ts';
export { EventTypes } from './resources/event-types.ts';
export { Messages, type SendOptions, type SentMessage } from './resources/messages.ts';
export { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type FetchLike, type RequestOptions, type RetryOn429 } from './transport.ts';
export type * from './types.ts';
export type { components, operations, paths } from './api-types.ts';
