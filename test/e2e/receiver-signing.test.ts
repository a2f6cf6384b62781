// The two ends of a signature agree: what Wirehook's delivery side signs (core's signing) is
// what @wirehook/receiver accepts, for the standard header and every compat_signature shape,
// during a rotation too. The receiver's own tests check it against the official library; this
// checks it against our sender, so a change to either side fails here.
import { compatSignature, type CompatSignatureConfig, newSigningSecret, signatureKey, standardWebhookHeaders, webhookBody } from '@wirehook/core';
import { verify, WebhookVerificationError } from '@wirehook/receiver';
import { describe, expect, it } from 'vitest';

const now = Date.UTC(2026, 10, 30, 23, 59, 59);
const body = webhookBody('invoice.paid', now - 60_000, '{"invoice":1001,"amount":4200,"note":"日本語"}');
const [newer, older] = [newSigningSecret(), newSigningSecret()];
const keys = [signatureKey(newer), signatureKey(older)];

describe("the receiver accepts what Wirehook's delivery side signs", () => {
  it('the standard webhook-signature, with either secret of a rotation', () => {
    const headers = standardWebhookHeaders(keys, 'msg_1', now, body);
    for (const secret of [newer, older]) {
      const webhook = verify(body, headers, secret, { now: () => now });
      expect(webhook.id).toBe('msg_1');
      expect(webhook.event.type).toBe('invoice.paid');
    }
    const other = newSigningSecret();
    expect(() => verify(body, headers, other, { now: () => now })).toThrow(WebhookVerificationError);
  });

  const shapes: CompatSignatureConfig[] = [
    { header: 'X-Hub-Signature-256', content: 'body', encoding: 'hex', prefix: 'sha256=' },
    { header: 'X-Signature', content: 'timestamp_body', encoding: 'base64' },
    { header: 'X-Shopify-Hmac-Sha256', content: 'body', encoding: 'base64' },
    { header: 'X-Sig', content: 'timestamp_body', encoding: 'hex', prefix: 'v0=' },
  ];
  it.each(shapes)('the compat header $header ($content, $encoding, prefix $prefix)', (config) => {
    const headers = standardWebhookHeaders(keys, 'msg_2', now, body);
    const timestamp = Math.floor(now / 1000);
    const withCompat = { ...headers, [config.header.toLowerCase()]: compatSignature(config, keys, timestamp, body) };
    const compat = { header: config.header, content: config.content, encoding: config.encoding, prefix: config.prefix };
    for (const secret of [newer, older]) expect(verify(body, withCompat, secret, { now: () => now, compat }).id).toBe('msg_2');
    const tampered = body.replace('4200', '4201');
    expect(() => verify(tampered, withCompat, newer, { now: () => now, compat })).toThrow(WebhookVerificationError);
  });
});
