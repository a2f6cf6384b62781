import { compatSignature, orderingKeyHeader, standardWebhookHeaders, webhookBody, type CheckedTransformation } from '@wirehook/core';
import type { ClientTls } from '@wirehook/egress';
import type { DeliveryJob } from '@wirehook/store';
import type { SigningKeys } from './signing-keys.ts';

/** One outbound webhook request, ready for the egress client. */
export interface WebhookRequest {
  url: string;
  /** The endpoint id: each endpoint has its own connections (see HttpEgress). */
  poolKey: string;
  headers: Record<string, string>;
  body: string;
  /** The endpoint's client certificate (mutual TLS), its key opened; absent: none. */
  tls?: ClientTls;
}

/**
 * Builds the signed request for a claimed delivery at `now`: the endpoint's custom headers, Standard Webhooks headers, one
 * `v1,` signature per secret still valid (two during a rotation window), and the compat
 * signature header when the endpoint has one; an ordered delivery's `webhook-ordering-key` and
 * `webhook-sequence`. The body bytes are the ones signed. `transformed`: what the endpoint's
 * transformation returned, checked — its payload is the body's `data`, its headers replace the
 * custom headers, its URL the endpoint's; everything Wirehook sets is set the same.
 */
export function buildWebhookRequest(job: DeliveryJob, signingKeys: SigningKeys, now: number, transformed?: CheckedTransformation): WebhookRequest {
  const timestamp = Math.floor(now / 1000);
  const body = webhookBody(job.message.eventType, job.message.createdAt, transformed?.payloadJson ?? job.message.payload);
  const keys = job.secrets.map((s) => signingKeys.keyOf(s.sealed, job.endpoint.id));
  // The endpoint's custom headers first: none may take a name of Wirehook's (endpointHeadersInput), and these win anyway.
  const custom = transformed?.headers ?? customHeaders(job, signingKeys);
  const headers = { ...custom, ...standardWebhookHeaders(keys, job.message.id, now, body) };
  const compat = job.endpoint.compatSignature;
  if (compat) headers[compat.header.toLowerCase()] = compatSignature(compat, keys, timestamp, body);
  // An ordered delivery names its lane and place, so a receiver can tell a gap.
  const { orderingKey, sequence } = job.delivery;
  if (orderingKey != null && sequence != null) {
    headers['webhook-ordering-key'] = orderingKeyHeader(orderingKey);
    headers['webhook-sequence'] = String(sequence);
  }
  const url = transformed?.url ?? job.endpoint.url;
  const tls = job.endpoint.tls;
  if (!tls) return { url, poolKey: job.endpoint.id, headers, body };
  // Mutual TLS: the endpoint's client certificate, its key opened here (never stored in the clear).
  return { url, poolKey: job.endpoint.id, headers, body, tls: signingKeys.clientTlsOf(job.endpoint.id, tls) };
}

/** The endpoint's custom headers, opened. @throws UnsealError when they do not open here. */
export function customHeaders(job: DeliveryJob, signingKeys: SigningKeys): Readonly<Record<string, string>> {
  return job.endpoint.headers ? signingKeys.headersOf(job.endpoint.id, job.endpoint.headers) : {};
}
