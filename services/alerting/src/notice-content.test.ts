// Every kind of notice body matches the schema the OpenAPI `webhooks.failureNotice` is made
// from, and its `timestamp` is the ISO 8601 string a delivery's body has (not Unix ms).
import { alertNoticeSchema, webhookBody } from '@wirehook/core';
import type { NoticeEndpoint } from '@wirehook/store';
import { describe, expect, it } from 'vitest';
import { certificateExpiringContent, egressIpsContent, noticeContent, pendingRetriesContent, usageContent } from './notice-content.ts';

const NOW = Date.UTC(2026, 0, 1, 9, 30, 0, 123);
const ENDPOINT = {
  endpointId: 'ep_1',
  url: 'https://hooks.example.com/a',
  env: 'live',
  consumerExternalId: 'customer-42',
  failingSince: NOW - 60_000,
  lastError: 'http_status: 500',
  lastStatus: 500,
  messageId: 'msg_1',
  deliveryId: 'dlv_1',
} as NoticeEndpoint;

describe('notice content', () => {
  const contents = {
    delivery_failure: noticeContent('alert.delivery_failure', [ENDPOINT], NOW),
    endpoint_disabled: noticeContent('alert.endpoint_disabled', [ENDPOINT], NOW),
    pending_retries: pendingRetriesContent('live', 101, 100, NOW),
    usage: usageContent(8_000, 10_000, 80, NOW),
    certificate_expiring: certificateExpiringContent(
      [
        {
          certificate: {
            tenant: { orgId: 'org_1', env: 'live' },
            id: 'ep_1',
            consumerId: 'con_1',
            url: 'https://hooks.example.com/a',
            status: 'paused',
            failingSince: null,
            subject: 'CN=client',
            notAfter: NOW + 86_400_000,
            fingerprintSha256: 'AB:CD',
          } as never,
          consumerExternalId: null,
        },
      ],
      false,
      14,
      NOW,
    ),
    egress_ips: egressIpsContent({ added: ['192.0.2.1'], retiring: [], retiringAt: null } as never, [{ ip: '192.0.2.1', family: 4, retiringAt: null }], NOW),
  };

  it.each(Object.entries(contents))('%s: matches the documented schema', (_name, content) => {
    expect(alertNoticeSchema.safeParse(JSON.parse(JSON.stringify(content))).error).toBeUndefined();
  });

  it('sends timestamp as a delivery does: the ISO 8601 UTC string of the same instant', () => {
    const delivery = JSON.parse(webhookBody('invoice.paid', NOW, '{}')) as { timestamp: string };
    for (const content of Object.values(contents)) expect(content.timestamp).toBe(delivery.timestamp);
    expect(contents.usage.timestamp).toBe('2026-01-01T09:30:00.123Z');
  });
});
