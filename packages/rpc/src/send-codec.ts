// A signed webhook and what came of its send, as protobuf: `wirehook.relay.v1`'s DeliverRequest
// and DeliverResponse. The relay's gRPC call carries them, and so does the request/reply of a
// `wirehook listen` connection in cluster mode (dispatcher → the gateway pod holding it, over
// NATS): one wire shape for "send this, here is what happened".
import { create, fromBinary, type MessageInitShape, toBinary } from '@bufbuild/protobuf';
import type { ClientTls, SendRequest, SendResult, TokenFetch } from '@wirehook/egress';
import type { OAuthTokenAuthMethod } from '@wirehook/core';
import {
  type ClientTls as ClientTlsMessage,
  type DeliverRequest,
  DeliverRequestSchema,
  type DeliverResponse,
  DeliverResponseSchema,
  type FetchTokenRequest,
  type FetchTokenRequestSchema,
} from './gen/wirehook/relay/v1/relay_pb.ts';

/** A signed webhook to send elsewhere: the egress request, and whose connections (the endpoint id) to use. */
export type ForwardedSend = Pick<SendRequest, 'url' | 'headers' | 'body' | 'tls'> & { poolKey: string };

function clientTlsMessage(tls: ClientTls): MessageInitShape<typeof DeliverRequestSchema>['tls'] {
  return { id: tls.id, cert: tls.cert, key: tls.key, ...(tls.ca === null ? {} : { ca: tls.ca }) };
}

function clientTlsOf(tls: ClientTlsMessage): ClientTls {
  return { id: tls.id, cert: tls.cert, key: tls.key, ca: tls.ca ?? null };
}

export function deliverRequestOf(send: ForwardedSend): MessageInitShape<typeof DeliverRequestSchema> {
  return {
    url: send.url,
    poolKey: send.poolKey,
    headers: send.headers,
    body: Buffer.from(send.body, 'utf8'),
    ...(send.tls ? { tls: clientTlsMessage(send.tls) } : {}),
  };
}

export function forwardedSendOf(request: Pick<DeliverRequest, 'url' | 'poolKey' | 'headers' | 'body' | 'tls'>): ForwardedSend {
  const send: ForwardedSend = { url: request.url, poolKey: request.poolKey, headers: { ...request.headers }, body: Buffer.from(request.body).toString('utf8') };
  if (request.tls) send.tls = clientTlsOf(request.tls);
  return send;
}

export function tokenRequestOf(fetch: TokenFetch): MessageInitShape<typeof FetchTokenRequestSchema> {
  const c = fetch.credentials;
  return {
    poolKey: fetch.poolKey,
    tokenUrl: c.tokenUrl,
    clientId: c.clientId,
    clientSecret: c.clientSecret,
    tokenAuthMethod: c.tokenAuthMethod,
    ...(c.scope === null ? {} : { scope: c.scope }),
    ...(c.audience === null ? {} : { audience: c.audience }),
    ...(fetch.tls ? { tls: clientTlsMessage(fetch.tls) } : {}),
  };
}

/** The token fetch a FetchTokenRequest asks for; its method is checked by the relay (relayTokenViolation), as every field. */
export function tokenFetchOf(request: FetchTokenRequest): TokenFetch {
  return {
    poolKey: request.poolKey,
    credentials: {
      tokenUrl: request.tokenUrl,
      clientId: request.clientId,
      clientSecret: request.clientSecret,
      scope: request.scope ?? null,
      audience: request.audience ?? null,
      tokenAuthMethod: request.tokenAuthMethod as OAuthTokenAuthMethod,
    },
    ...(request.tls ? { tls: clientTlsOf(request.tls) } : {}),
  };
}

export function deliverResponseOf(r: SendResult): MessageInitShape<typeof DeliverResponseSchema> {
  return {
    ok: r.ok,
    durationMs: Math.max(0, Math.round(r.durationMs)),
    ...(r.status === null ? {} : { status: r.status }),
    ...(r.responseHead === null ? {} : { responseHead: r.responseHead }),
    ...(r.error === null ? {} : { error: r.error }),
    ...(r.sourceIp === null ? {} : { sourceIp: r.sourceIp }),
    ...(r.retryAfter == null ? {} : { retryAfter: r.retryAfter }),
  };
}

export function sendResultOf(r: DeliverResponse): SendResult {
  return {
    ok: r.ok,
    status: r.status ?? null,
    responseHead: r.responseHead ?? null,
    error: r.error ?? null,
    durationMs: r.durationMs,
    sourceIp: r.sourceIp ?? null,
    // As HttpEgress reports it: the dispatcher holds the endpoint on it.
    retryAfter: r.retryAfter ?? null,
  };
}

/** The bytes of `send` (a bus request's payload). */
export function encodeForwardedSend(send: ForwardedSend): Uint8Array {
  return toBinary(DeliverRequestSchema, create(DeliverRequestSchema, deliverRequestOf(send)));
}

/** @throws Error for bytes that are not a DeliverRequest. */
export function decodeForwardedSend(bytes: Uint8Array): ForwardedSend {
  return forwardedSendOf(fromBinary(DeliverRequestSchema, bytes));
}

/** The bytes of `result` (a bus reply's payload). */
export function encodeSendResult(result: SendResult): Uint8Array {
  return toBinary(DeliverResponseSchema, create(DeliverResponseSchema, deliverResponseOf(result)));
}

/** @throws Error for bytes that are not a DeliverResponse. */
export function decodeSendResult(bytes: Uint8Array): SendResult {
  return sendResultOf(fromBinary(DeliverResponseSchema, bytes));
}
