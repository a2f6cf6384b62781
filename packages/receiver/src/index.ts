// The framework-free entry: verify, Node's http and the Web Request. Express and Fastify have
// their own entries (@wirehook/receiver/express, /fastify), so neither is needed to import this.
export { verify, DEFAULT_TOLERANCE_SECONDS, type VerifiedWebhook, type VerifyOptions, type WebhookEvent } from './verify.ts';
export {
  REASON_STATUS,
  WebhookVerificationError,
  type VerificationErrorBody,
  type VerificationFailure,
} from './verification-error.ts';
export type { HeaderGetter, HeadersLike } from './headers.ts';
export type { RawBody } from './raw-body.ts';
export type { WebhookSecret } from './secret.ts';
export type { CompatSignatureOptions } from './signature-scheme.ts';
export { DEFAULT_MAX_BODY_BYTES } from './read-body.ts';
export { verifyNodeRequest, type NodeRequestOptions } from './node-http.ts';
export { verifyRequest } from './web-request.ts';
