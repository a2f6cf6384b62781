// Chat notices quote what receivers wrote (a URL, an error, a Location header): escaped for
// the chat's format, so it can neither ping a channel nor make a link, and capped in length.
import type { ConsumerId, EndpointId } from '@wirehook/core';
import type { ExpiringCertificate, NoticeEndpoint } from '@wirehook/store';
import { describe, expect, it } from 'vitest';
import { chatFormat, chatText } from './chat-text.ts';
import { certificateExpiringContent, noticeContent } from './notice-content.ts';

const T0 = Date.UTC(2026, 4, 12, 9, 0, 0);
const endpoint = (n: number, over: Partial<NoticeEndpoint> = {}): NoticeEndpoint => ({
  env: 'live',
  endpointId: `ep_${n}` as EndpointId,
  url: `https://hooks.customer-${n}.test/${'x'.repeat(60)}`,
  consumerExternalId: `customer-${n}`,
  failingSince: T0,
  lastError: 'http_status: 503',
  lastStatus: 503,
  ...over,
});
const hostile = endpoint(1, {
  lastError: 'redirect: 302 to <!channel> <https://evil.test/login|Click to fix your webhook> & [fix](https://evil.test)',
  consumerExternalId: '<@U123> *urgent*',
});

describe('chat text', () => {
  it("Slack: a receiver's text cannot mention a channel or make a link", () => {
    const text = chatText(noticeContent('alert.delivery_failure', [hostile], T0), 'slack');
    expect(text).not.toMatch(/<!channel>|<https:|<@U123>/);
    expect(text).toContain('&lt;!channel&gt; &lt;https://evil.test/login|Click to fix your webhook&gt; &amp;');
  });

  it("Teams (Markdown): neither a link nor emphasis from a receiver's text", () => {
    const text = chatText(noticeContent('alert.delivery_failure', [hostile], T0), 'teams');
    expect(text).not.toContain('[fix](https://evil.test)');
    expect(text).toContain('\\[fix\\]\\(https://evil\\.test\\)');
    expect(text).toContain('\\*urgent\\*');
  });

  it('a combined notice stays within 3,000 characters, the rest counted ("and N more endpoints")', () => {
    const many = Array.from({ length: 40 }, (_, i) => endpoint(i));
    for (const format of ['slack', 'teams'] as const) {
      const text = chatText(noticeContent('alert.delivery_failure', many, T0), format);
      expect(text.length, format).toBeLessThanOrEqual(3_000);
      const shown = text.split('\n').filter((l) => l.startsWith('- ')).length;
      expect(text, format).toMatch(new RegExp(`…and ${40 - shown} more endpoints$`));
      expect(shown, format).toBeGreaterThan(5);
    }
    const summary = noticeContent('alert.delivery_failure', many, T0).data.summary;
    expect(summary.length).toBeLessThanOrEqual(3_000);
    expect(summary).toMatch(/…and \d+ more endpoints$/);
  });

  it("a certificate notice: the certificate's subject, the URL and the customer id cannot ping or link; our words are not lost", () => {
    const certificate: ExpiringCertificate = {
      tenant: { orgId: 'org_1' as never, env: 'live' },
      id: 'ep_1' as EndpointId,
      consumerId: 'con_1' as ConsumerId,
      url: 'https://hooks.acme.test/<!channel>',
      status: 'active',
      failingSince: null,
      subject: 'CN=<https://evil.test|Click here>, O=[fix](https://evil.test)',
      notAfter: T0 + 3 * 86_400_000,
      fingerprintSha256: 'AB:CD',
    };
    const content = certificateExpiringContent([{ certificate, consumerExternalId: '<@U123> *urgent*' }], false, 14, T0);
    const slack = chatText(content, 'slack');
    expect(slack).not.toMatch(/<!channel>|<https:|<@U123>/);
    expect(slack).toContain("An endpoint's client certificate expires in 3 days.");
    expect(slack).toContain('CN=&lt;https://evil.test|Click here&gt;');
    expect(slack).toContain('(3 days left), SHA-256 AB:CD');
    const teams = chatText(content, 'teams');
    expect(teams).not.toContain('[fix](https://evil.test)');
    expect(teams).toContain('\\*urgent\\*');
    expect(teams).toContain('2026\\-05\\-15T09:00:00\\.000Z');
  });

  it('a certificate notice of many stays within 3,000 characters, the rest counted', () => {
    const many = Array.from({ length: 60 }, (_, i) => ({
      certificate: {
        tenant: { orgId: 'org_1' as never, env: 'live' as const },
        id: `ep_${i}` as EndpointId,
        consumerId: 'con_1' as ConsumerId,
        url: `https://hooks.customer-${i}.test/${'x'.repeat(60)}`,
        status: 'active' as const,
        failingSince: null,
        subject: `CN=client-${i}`,
        notAfter: T0 + 86_400_000,
        fingerprintSha256: 'AB:CD',
      },
      consumerExternalId: `customer-${i}`,
    }));
    const content = certificateExpiringContent(many, false, 14, T0);
    expect(content.data.certificates).toHaveLength(60);
    for (const text of [content.data.summary, chatText(content, 'slack'), chatText(content, 'teams')]) {
      expect(text.length).toBeLessThanOrEqual(3_000);
      expect(text).toMatch(/…and \d+ more endpoints$/);
    }
  });

  it('one very long field is shortened, not the notice dropped', () => {
    const text = chatText(noticeContent('alert.delivery_failure', [endpoint(1, { lastError: 'e'.repeat(10_000) })], T0), 'slack');
    expect(text.length).toBeLessThan(1_000);
    expect(text).toContain('…');
  });

  it.each([
    ['https://hooks.slack.com/services/T/B/X', 'slack'],
    ['https://acme.webhook.office.com/webhookb2/x', 'teams'],
    ['https://prod-01.westeurope.logic.azure.com/workflows/x', 'teams'],
    ['https://chat.acme.test/hooks/x', 'slack'],
  ])('%s is %s', (url, format) => expect(chatFormat(url)).toBe(format));
});
