import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CompatSignatureOptions } from './signature-scheme.ts';
import { refusal } from './testing/refusal.ts';
import { newSecret, wirehookBody } from './testing/sender.ts';
import { verify } from './verify.ts';

const T = 1_767_322_245;
const now = () => T * 1000;

/** The compat header value, computed here independently of the package (docs/semantics.md). */
function compatValue(secret: string, config: CompatSignatureOptions, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const content = config.content === 'timestamp_body' ? `${T}.${body}` : body;
  return (config.prefix ?? '') + createHmac('sha256', key).update(content).digest(config.encoding);
}

describe('the compat signature header', () => {
  const secret = newSecret();
  const body = wirehookBody({ order: 77 });
  // No webhook-signature: the compat header alone is checked.
  const baseHeaders = { 'webhook-id': 'msg_c', 'webhook-timestamp': String(T) };

  const configs: CompatSignatureOptions[] = [
    { header: 'X-Hub-Signature-256', content: 'body', encoding: 'hex', prefix: 'sha256=' },
    { header: 'x-signature', content: 'body', encoding: 'base64' },
    { header: 'X-Signature', content: 'timestamp_body', encoding: 'hex' },
    { header: 'stripe-like-signature', content: 'timestamp_body', encoding: 'base64', prefix: 'v1=' },
  ];

  it.each(configs)('verifies $content / $encoding / prefix $prefix in $header', (compat) => {
    const headers = { ...baseHeaders, [compat.header]: compatValue(secret, compat, body) };
    expect(verify(body, headers, secret, { now, compat })).toEqual({ id: 'msg_c', timestamp: T, event: JSON.parse(body), body });
  });

  it.each(configs)('refuses a tampered body with $content / $encoding', (compat) => {
    const headers = { ...baseHeaders, [compat.header]: compatValue(secret, compat, body) };
    expect(refusal(() => verify(body.replace('77', '78'), headers, secret, { now, compat })).reason).toBe('no_matching_signature');
  });

  it('signs the timestamp with timestamp_body: another webhook-timestamp is refused', () => {
    const compat: CompatSignatureOptions = { header: 'x-signature', content: 'timestamp_body', encoding: 'hex' };
    const headers = { ...baseHeaders, 'webhook-timestamp': String(T - 1), 'x-signature': compatValue(secret, compat, body) };
    expect(refusal(() => verify(body, headers, secret, { now, compat })).reason).toBe('no_matching_signature');
  });

  it('does not mix up encodings: a hex MAC is refused when base64 is configured', () => {
    const hex: CompatSignatureOptions = { header: 'x-signature', content: 'body', encoding: 'hex' };
    const headers = { ...baseHeaders, 'x-signature': compatValue(secret, hex, body) };
    expect(refusal(() => verify(body, headers, secret, { now, compat: { ...hex, encoding: 'base64' } })).reason).toBe('no_matching_signature');
  });

  it('accepts either of two values during a rotation', () => {
    const compat: CompatSignatureOptions = { header: 'x-hub-signature-256', content: 'body', encoding: 'hex', prefix: 'sha256=' };
    const value = `${compatValue(newSecret(), compat, body)} ${compatValue(secret, compat, body)}`;
    expect(verify(body, { ...baseHeaders, 'x-hub-signature-256': value }, secret, { now, compat }).id).toBe('msg_c');
  });

  it('names the missing compat header and points at the endpoint configuration', () => {
    const compat: CompatSignatureOptions = { header: 'X-Hub-Signature-256', content: 'body', encoding: 'hex' };
    const err = refusal(() => verify(body, baseHeaders, secret, { now, compat }));
    expect(err.reason).toBe('missing_header');
    expect(err.message).toContain('the x-hub-signature-256 header is missing');
    expect(err.message).toContain('compat_signature');
  });

  it('says so when no value carries the configured prefix', () => {
    const compat: CompatSignatureOptions = { header: 'x-sig', content: 'body', encoding: 'hex', prefix: 'sha256=' };
    const unprefixed = compatValue(secret, { ...compat, prefix: '' }, body);
    const err = refusal(() => verify(body, { ...baseHeaders, 'x-sig': unprefixed }, secret, { now, compat }));
    expect(err.reason).toBe('no_matching_signature');
    expect(err.message).toContain('holds no signature of the form sha256=<hex>');
  });

  it('still applies the timestamp tolerance', () => {
    const compat: CompatSignatureOptions = { header: 'x-sig', content: 'timestamp_body', encoding: 'hex' };
    const headers = { ...baseHeaders, 'x-sig': compatValue(secret, compat, body) };
    expect(refusal(() => verify(body, headers, secret, { now: () => (T + 301) * 1000, compat })).reason).toBe('timestamp_too_old');
  });
});
