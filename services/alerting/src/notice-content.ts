import { type AlertNotice, type EgressAddress, type Environment, noticeTimestamp, PENDING_RETRIES_COUNTED_UP_TO, thousands } from '@wirehook/core';
import type { EgressChange, ExpiringCertificate, NoticeEndpoint } from '@wirehook/store';
import { capLines, certificateLine, MAX_CHAT_CHARS } from './chat-text.ts';

// What a notice says: the JSON of webhook notices, and the same in words for chat and e-mail.

/** A notice's body (`{type, timestamp, data}`): core's alertNoticeSchema, which the OpenAPI `webhooks` describe. */
export type NoticeContent = AlertNotice;

/** alert.egress_ips: the addresses fixed_ip endpoints are sent from changed (the same words for every organization). */
export function egressIpsContent(change: EgressChange, listed: readonly EgressAddress[], now: number): NoticeContent {
  const lines = ['The addresses Wirehook sends webhooks of fixed_ip endpoints from have changed.'];
  if (change.added.length > 0) lines.push(`New (allow them now; endpoints may be sent from them at once): ${change.added.join(', ')}.`);
  if (change.retiring.length > 0) {
    const until = change.retiringAt === null ? '' : ` (listed as retiring until ${new Date(change.retiringAt).toISOString()})`;
    lines.push(`No longer sent from${until}: ${change.retiring.join(', ')}.`);
  }
  const current = listed.filter((a) => a.retiringAt === null).map((a) => a.ip);
  lines.push(`Allow: ${current.join(', ') || 'none'} (GET /v1/egress-ips lists them).`);
  return {
    type: 'alert.egress_ips',
    timestamp: noticeTimestamp(now),
    data: {
      environments: ['live', 'test'],
      endpoints: [],
      added: change.added,
      retiring: change.retiring,
      retiring_at: change.retiringAt,
      addresses: listed.map((a) => ({ ip: a.ip, family: a.family, retiring_at: a.retiringAt })),
      summary: lines.join('\n'),
    },
  };
}

const DAY_MS = 86_400_000;

/** A certificate an alert.certificate_expiring notice lists: as read, with its endpoint's customer (null: not found). */
export interface NoticeCertificate {
  certificate: ExpiringCertificate;
  consumerExternalId: string | null;
}

/**
 * alert.certificate_expiring: endpoints' client certificates (mutual TLS) expire within the
 * window (`windowDays`). `more`: the organization has more expiring than `certificates` lists
 * (the soonest are listed). Each certificate is in `certificates` and its endpoint in `endpoints`.
 */
export function certificateExpiringContent(certificates: readonly NoticeCertificate[], more: boolean, windowDays: number, now: number): NoticeContent {
  const environments = [...new Set(certificates.map((c) => c.certificate.tenant.env))].sort();
  const listed = certificates.map(({ certificate: c, consumerExternalId }) => ({
    endpoint_id: c.id,
    environment: c.tenant.env,
    url: c.url,
    ...(consumerExternalId === null ? {} : { consumer: { external_id: consumerExternalId } }),
    subject: c.subject,
    not_after: c.notAfter,
    fingerprint_sha256: c.fingerprintSha256,
    // Rounded up, as the portal shows it: 13 days and an hour left is 14; less than a day is 1.
    days_left: Math.max(1, Math.ceil((c.notAfter - now) / DAY_MS)),
  }));
  const first = listed[0];
  const head = more
    ? `More than ${listed.length} endpoints' client certificates expire within ${windowDays} days (the ${listed.length} soonest are listed).`
    : listed.length === 1 && first !== undefined
      ? `An endpoint's client certificate expires in ${first.days_left === 1 ? '1 day' : `${first.days_left} days`}.`
      : `The client certificates of ${listed.length} endpoints expire within ${windowDays} days.`;
  const how = "(the endpoint's tls, by PATCH or in the portal)";
  const action =
    listed.length === 1
      ? ` Give it a new certificate before then ${how}: once it expires, every delivery to the endpoint fails (tls).`
      : ` Give each a new certificate before it expires ${how}: from then on every delivery to its endpoint fails (tls).`;
  return {
    type: 'alert.certificate_expiring',
    timestamp: noticeTimestamp(now),
    data: {
      environments,
      endpoints: certificates.map(({ certificate: c, consumerExternalId }) => ({
        id: c.id,
        url: c.url,
        environment: c.tenant.env,
        consumer: { external_id: consumerExternalId ?? '' },
        failing_since: c.failingSince,
        last_error: null,
        last_status: null,
      })),
      certificates: listed,
      // Every certificate is in `data.certificates`; the words stop at MAX_CHAT_CHARS ("…and 37 more endpoints").
      summary: capLines(
        [head + action],
        listed.map((c) => certificateLine(c)),
        MAX_CHAT_CHARS,
      ),
    },
  };
}

/** A retrying total as a person reads it: a store counts up to PENDING_RETRIES_COUNTED_UP_TO, so that many or more is "more than" the largest threshold. */
function waitingCount(retrying: number): string {
  if (retrying < PENDING_RETRIES_COUNTED_UP_TO) return thousands(retrying);
  return `More than ${thousands(PENDING_RETRIES_COUNTED_UP_TO - 1)}`;
}

/** alert.pending_retries: an environment's total of deliveries waiting to retry crossed the chosen number. */
export function pendingRetriesContent(env: Environment, retrying: number, threshold: number, now: number): NoticeContent {
  return {
    type: 'alert.pending_retries',
    timestamp: noticeTimestamp(now),
    data: {
      environments: [env],
      endpoints: [],
      retrying,
      threshold,
      summary:
        `${waitingCount(retrying)} deliveries are waiting to retry in the ${env} environment (the threshold is ${thousands(threshold)}). ` +
        'Some endpoints are failing: see the deliveries in retrying.',
    },
  };
}

/** alert.usage: this month's live messages reached a share of the plan's limit. */
export function usageContent(used: number, limit: number, threshold: number, now: number): NoticeContent {
  const percent = Math.floor((used / limit) * 100);
  return {
    type: 'alert.usage',
    timestamp: noticeTimestamp(now),
    data: {
      environments: ['live'],
      endpoints: [],
      used,
      limit,
      percent,
      threshold,
      summary:
        `This month's live messages reached ${percent} % of the plan's limit (${thousands(used)} of ${thousands(limit)}). ` +
        'At 100 % further sends are refused (402 plan_limit) until next month or a larger plan.',
    },
  };
}

export function noticeContent(type: 'alert.delivery_failure' | 'alert.endpoint_disabled', endpoints: NoticeEndpoint[], now: number): NoticeContent {
  const environments = [...new Set(endpoints.map((e) => e.env))].sort();
  return {
    type,
    timestamp: noticeTimestamp(now),
    data: {
      environments,
      endpoints: endpoints.map((e) => ({
        id: e.endpointId,
        url: e.url,
        environment: e.env,
        consumer: { external_id: e.consumerExternalId },
        failing_since: e.failingSince,
        last_error: e.lastError,
        last_status: e.lastStatus,
        message_id: e.messageId ?? null,
        delivery_id: e.deliveryId ?? null,
      })),
      summary: summary(type, endpoints),
    },
  };
}

function summary(type: 'alert.delivery_failure' | 'alert.endpoint_disabled', endpoints: NoticeEndpoint[]): string {
  const lines = endpoints.map((e) => {
    const since = e.failingSince === null ? '' : `, failing since ${new Date(e.failingSince).toISOString()}`;
    const last = e.lastError ?? (e.lastStatus === null ? 'no response' : `HTTP ${e.lastStatus}`);
    const ids = e.messageId ? ` (message ${e.messageId}, delivery ${e.deliveryId ?? '?'})` : '';
    return `- ${e.url} (${e.env}, customer ${e.consumerExternalId})${since}; last attempt: ${last}${ids}`;
  });
  const head =
    type === 'alert.endpoint_disabled'
      ? 'An endpoint was stopped automatically after 5 days of failed deliveries. Its customer must fix it and resume it:'
      : endpoints.length === 1
        ? 'Deliveries to an endpoint are failing:'
        : `Deliveries to ${endpoints.length} endpoints are failing:`;
  // Every endpoint is in `data.endpoints`; the words stop at MAX_CHAT_CHARS ("…and 37 more endpoints").
  return capLines([head], lines, MAX_CHAT_CHARS);
}
