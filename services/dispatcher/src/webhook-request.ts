import { compatSignature, standardWebhookHeaders, webhookBody } from '@wirehook/core';
import type { DeliveryJob } from '@wirehook/store';
import type { SigningKeys } from './signing-keys.ts';

/** One outbound webhook request, ready for the egress client. */
export interface WebhookRequest {
  url: string;
  /** The endpoint id: each endpoint has its own connections (see HttpEgress). */
  poolKey: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Builds the signed request for a claimed delivery at `now`: Standard Webhooks headers, one
 * `v1,` signature per secret still valid (two during a rotation window), and the compat
 * signature header when the endpoint has one. The body bytes are the ones signed.
 */
export function buildWebhookRequest(job: DeliveryJob, signingKeys: SigningKeys, now: number): WebhookRequest {
  const timestamp = Math.floor(now / 1000);
  const body = webhookBody(job.message.eventType, job.message.createdAt, job.message.payload);
  const keys = job.secrets.map((s) => signingKeys.keyOf(s.sealed, job.endpoint.id));
  const headers = standardWebhookHeaders(keys, job.message.id, now, body);
  const compat = job.endpoint.compatSignature;
  if (compat) headers[compat.header.toLowerCase()] = compatSignature(compat, keys, timestamp, body);
  return { url: job.endpoint.url, poolKey: job.endpoint.id, headers, body };
}
