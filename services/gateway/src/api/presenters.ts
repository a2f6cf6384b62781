import type { Consumer, Endpoint, EventType } from '@wirehook/core';

// Domain records → the spec's JSON shapes (snake_case, Unix ms). One function per type.

export function consumerJson(c: Consumer) {
  return { id: c.id, external_id: c.externalId, name: c.name, created_at: c.createdAt, endpoint_count: c.endpointCount };
}

export function endpointJson(e: Endpoint) {
  return {
    id: e.id,
    consumer_id: e.consumerId,
    url: e.url,
    description: e.description,
    event_types: e.eventTypes,
    fixed_ip: e.fixedIp,
    status: e.status,
    disabled_reason: e.disabledReason,
    failing_since: e.failingSince,
    created_at: e.createdAt,
    retry: { count: e.retry.count, interval: e.retry.interval },
    compat_signature: e.compatSignature,
  };
}

export function eventTypeJson(t: EventType) {
  return { name: t.name, description: t.description, archived_at: t.archivedAt };
}
