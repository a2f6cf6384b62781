import {
  encodeCursor,
  endpointAuthJson,
  waitingOn,
  type AlertTargetResponse,
  type Attempt,
  type AttemptResponse,
  type Consumer,
  type ConsumerResponse,
  type Delivery,
  type DeliveryResponse,
  type EgressAddress,
  type EgressIpResponse,
  type Endpoint,
  type EndpointResponse,
  type EndpointStats,
  type EndpointStatsResponse,
  type EventType,
  type EventTypeSummary,
  type EventTypeSummaryResponse,
  type EventTypeResponse,
  type MessageDetailResponse,
  type MessageRowResponse,
  type Recovery,
  type RecoveryResponse,
} from '@wirehook/core';
import type { ThroughputSnapshot } from '@wirehook/kv';
import type { AlertTarget, MessageDetail, MessageSummary } from '@wirehook/store';

// Domain records → the spec's JSON shapes (snake_case, Unix ms). One function per type, each
// typed by its response schema (core's api-responses.ts), which the OpenAPI document is made from.

export function consumerJson(c: Consumer): ConsumerResponse {
  return { id: c.id, external_id: c.externalId, name: c.name, created_at: c.createdAt, endpoint_count: c.endpointCount };
}

export function endpointJson(e: Endpoint): EndpointResponse {
  return {
    id: e.id,
    consumer_id: e.consumerId,
    url: e.url,
    description: e.description,
    event_types: e.eventTypes,
    fixed_ip: e.fixedIp,
    type: e.type ?? 'http',
    status: e.status,
    disabled_reason: e.disabledReason,
    failing_since: e.failingSince,
    created_at: e.createdAt,
    retry: { count: e.retry.count, interval: e.retry.interval },
    compat_signature: e.compatSignature,
    headers: e.headers?.shown ?? null,
    tls: e.tls
      ? {
          subject: e.tls.info.subject,
          issuer: e.tls.info.issuer,
          not_after: e.tls.info.notAfter,
          fingerprint_sha256: e.tls.info.fingerprintSha256,
          server_ca_subject: e.tls.info.serverCaSubject,
        }
      : null,
    auth: endpointAuthJson(e.auth),
    transformation: e.transformation ? { code: e.transformation.code, enabled: e.transformation.enabled } : null,
    ordering: e.ordering ?? 'none',
    rate_limit: e.rateLimit ?? null,
  };
}

export function recoveryJson(r: Recovery): RecoveryResponse {
  return {
    id: r.id,
    endpoint_id: r.endpointId,
    since: r.since,
    status: r.status,
    total: r.total,
    queued: r.queued,
    created_at: r.createdAt,
    finished_at: r.finishedAt,
  };
}

export function eventTypeSummaryJson(t: EventTypeSummary): EventTypeSummaryResponse {
  return {
    name: t.name,
    description: t.description,
    archived_at: t.archivedAt,
    validation: t.validation,
    deprecated: t.deprecated,
    version: t.version,
    has_schema: t.hasSchema,
    updated_at: t.updatedAt,
  };
}

export function eventTypeJson(t: EventType): EventTypeResponse {
  const { has_schema: _has, ...summary } = eventTypeSummaryJson({ ...t, hasSchema: t.schema !== null });
  return { ...summary, schema: t.schema, examples: t.examples };
}

export function attemptJson(a: Attempt): AttemptResponse {
  return {
    id: a.id,
    at: a.at,
    response_status: a.responseStatus,
    response_head: a.responseHead,
    duration_ms: a.durationMs,
    error: a.error,
    via: a.via,
    source_ip: a.sourceIp,
    url: a.url,
  };
}

/** Whether a delivery has attempts older than those shown, and the time a cursor to them is issued at. */
export interface OlderAttempts {
  olderAttempts: boolean;
  now: number;
}

/**
 * A delivery's `url` is its endpoint's current one (`endpoint`: where its next attempt goes,
 * a PATCH of the endpoint's url included); without it (the endpoint is deleted) the URL its
 * last attempt went to, else the one it was made for. Each attempt shows its own. `attempts`
 * are its newest, oldest of them first; `older` gives the cursor to the ones before them
 * and the time `waiting_on` is told at.
 */
export function deliveryJson(d: Delivery, attempts: Attempt[], endpoint: Endpoint | undefined, older: OlderAttempts): DeliveryResponse {
  const oldestShown = attempts[0];
  const currentUrl = endpoint?.url;
  return {
    id: d.id,
    endpoint_id: d.endpointId,
    url: currentUrl ?? attempts.at(-1)?.url ?? d.url,
    status: d.status,
    attempt_count: d.attemptCount,
    next_attempt_at: d.nextAttemptAt,
    ordering_key: d.orderingKey ?? null,
    sequence: d.sequence ?? null,
    waiting_on: waitingOn(d, endpoint, older.now),
    attempts: attempts.map(attemptJson),
    attempts_next_cursor: older.olderAttempts && oldestShown ? encodeCursor(oldestShown.id, older.now) : null,
  };
}

/** The fields MessageRow and MessageDetail share. */
function messageHeadJson({ message, consumer }: Pick<MessageSummary, 'message' | 'consumer'>) {
  return {
    id: message.id,
    event_type: message.eventType,
    consumer: { id: consumer.id, external_id: consumer.externalId, name: consumer.name },
    created_at: message.createdAt,
    status: message.status,
  };
}

export function messageRowJson(row: MessageSummary): MessageRowResponse {
  return {
    ...messageHeadJson(row),
    attempts: { count: row.attemptCount, last_at: row.lastAttemptAt },
    endpoint_url: row.endpointUrl,
  };
}

/** `endpoints`: each endpoint that still exists, by id (see deliveryJson); `now`: when cursors are issued and waiting_on told. */
export function messageDetailJson(detail: MessageDetail, endpoints: ReadonlyMap<string, Endpoint>, now: number): MessageDetailResponse {
  return {
    ...messageHeadJson(detail),
    idempotency_key: detail.message.idempotencyKey,
    ordering_key: detail.message.orderingKey ?? null,
    payload: JSON.parse(detail.message.payload) as MessageDetailResponse['payload'],
    deliveries: detail.deliveries.map((d) =>
      deliveryJson(d.delivery, d.attempts, endpoints.get(d.delivery.endpointId), { olderAttempts: d.olderAttempts, now }),
    ),
  };
}

export function endpointStatsJson(s: EndpointStats): EndpointStatsResponse {
  return {
    endpoint_id: s.endpointId,
    window: s.window,
    from: s.from,
    to: s.to,
    attempts: s.attempts,
    succeeded: s.succeeded,
    failed: s.failed,
    success_rate: s.successRate,
    latency_ms: s.latencyMs,
    errors: s.errors,
    pending: s.pending,
    oldest_pending_at: s.oldestPendingAt,
    series: s.series.map((p) => ({ at: p.at, attempts: p.attempts, succeeded: p.succeeded, failed: p.failed, p95_ms: p.p95Ms })),
  };
}

/** The `throughput` object of an endpoint's detail. */
export interface ThroughputJson {
  rate_limit: number | null;
  concurrency: number | null;
  in_flight: number;
  held_until: number | null;
}

/** The `throughput` object: a hold that has ended reads as null. */
export function throughputJson(endpoint: Endpoint, flow: ThroughputSnapshot, now: number): ThroughputJson {
  const held = endpoint.heldUntil ?? null;
  return {
    rate_limit: endpoint.rateLimit ?? null,
    concurrency: flow.concurrency,
    in_flight: flow.inFlight,
    held_until: held !== null && held > now ? held : null,
  };
}

/** An egress address as the API shows it. */
export function egressIpJson(a: EgressAddress): EgressIpResponse {
  return { ip: a.ip, family: a.family, retiring_at: a.retiringAt };
}

/** A target as read back: a chat URL is its own credential (anyone holding it can post), so it is redacted. */
export function alertTargetJson(t: AlertTarget): AlertTargetResponse {
  if (t.type === 'email') return { id: t.id, type: t.type, address: t.address ?? '', created_at: t.createdAt };
  return { id: t.id, type: t.type, url: t.type === 'chat' ? redactedUrl(t.url ?? '') : (t.url ?? ''), created_at: t.createdAt };
}

/** `https://hooks.slack.com/…wxyz`: the origin and the path's last 4 characters, enough to tell two apart. */
export function redactedUrl(url: string): string {
  const parsed = URL.parse(url);
  if (parsed === null) return '…';
  const rest = `${parsed.pathname}${parsed.search}`;
  return `${parsed.origin}/…${rest.length > 12 ? rest.slice(-4) : ''}`;
}
