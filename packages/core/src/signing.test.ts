import { readFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compatSignature, signatureKey, signingKeyObject, standardSignature, webhookBody } from './signing.ts';

interface SignVector {
  id: string;
  kind: string;
  secret: string;
  secret_decoded_length_bytes?: number;
  msg_id: string;
  timestamp: number;
  payload: string;
  expected_signature: string;
}

const vectors = JSON.parse(readFileSync(new URL('../testdata/standard-webhooks-vectors.json', import.meta.url), 'utf8')) as {
  published: SignVector[];
  published_negative: Record<string, unknown>[];
  published_secret_decoding_cases: { secret?: string }[];
};
const symmetric = vectors.published.filter((v) => v.kind === 'sign');
const negative = (id: string) => vectors.published_negative.find((v) => v.id === id) as Record<string, any>;

afterEach(() => {
  vi.useRealTimers();
});

describe('standardSignature against the published vectors', () => {
  it('has the symmetric vectors to check', () => {
    expect(symmetric.map((v) => v.id)).toEqual(['SW-HMAC-1', 'SW-HMAC-2']);
  });

  it.each(symmetric)('$id', (v) => {
    const key = signatureKey(v.secret);
    if (v.secret_decoded_length_bytes !== undefined) expect(key.length).toBe(v.secret_decoded_length_bytes);
    expect(standardSignature([key], v.msg_id, v.timestamp, v.payload)).toBe(v.expected_signature);
    expect(standardSignature([key], v.msg_id, v.timestamp, Buffer.from(v.payload))).toBe(v.expected_signature);
  });

  it('SW-HMAC-1 with the secret given without its whsec_ prefix', () => {
    const v = symmetric[0]!;
    const bare = v.secret.slice('whsec_'.length);
    expect(signatureKey(bare).equals(signatureKey(v.secret))).toBe(true);
    expect(standardSignature([signatureKey(bare)], v.msg_id, v.timestamp, v.payload)).toBe(v.expected_signature);
  });

  it('is not any published non-matching value for the same input (SW-NEG-MALFORMED)', () => {
    const v = symmetric[0]!;
    const header = standardSignature([signatureKey(v.secret)], v.msg_id, v.timestamp, v.payload);
    const bad = negative('SW-NEG-MALFORMED').bad_signature_headers as string[];
    expect(bad).toHaveLength(4);
    for (const value of bad) expect(header).not.toBe(value);
    // The official verifier accepts ours and refuses theirs at the vector's time.
    vi.useFakeTimers({ now: v.timestamp * 1000 });
    const wh = new Webhook(v.secret);
    const headers = (sig: string) => ({ 'webhook-id': v.msg_id, 'webhook-timestamp': String(v.timestamp), 'webhook-signature': sig });
    expect(wh.verify(v.payload, headers(header))).toEqual(JSON.parse(v.payload));
    for (const value of bad) expect(() => wh.verify(v.payload, headers(value))).toThrow(WebhookVerificationError);
  });

  it('refuses the timestamps a sender must not emit (SW-NEG-SIGN-TIMESTAMP)', () => {
    const v = negative('SW-NEG-SIGN-TIMESTAMP');
    const key = signatureKey(v.secret);
    const invalid = v.invalid_timestamps_for_sign as string[];
    expect(invalid).toHaveLength(3);
    for (const ts of invalid) {
      expect(() => standardSignature([key], v.msg_id, ts as unknown as number, v.payload)).toThrow(/non-negative integer/);
    }
    // The same values as numbers, where they are still not valid.
    for (const ts of [161426533.5, Number('invalid timestamp'), -161426533, Infinity]) {
      expect(() => standardSignature([key], v.msg_id, ts, v.payload)).toThrow(/non-negative integer/);
    }
    expect(standardSignature([key], v.msg_id, 0, v.payload)).toMatch(/^v1,/);
  });
});

describe('signatureKey', () => {
  it('refuses empty secrets (SW-NEG-SECRETS)', () => {
    const empty = negative('SW-NEG-SECRETS').empty_secrets_rejected as string[];
    expect(empty).toEqual(['', 'whsec_']);
    for (const secret of empty) expect(() => signatureKey(secret)).toThrow(/can't be empty/);
  });

  it('decodes padded and unpadded secrets like the libraries do', () => {
    const cases = vectors.published_secret_decoding_cases.flatMap((c) => (c.secret ? [c.secret] : []));
    expect(cases).toHaveLength(3);
    const lengths = cases.map((secret) => signatureKey(`whsec_${secret}`).length);
    expect(lengths).toEqual([24, 23, 25]);
    for (const secret of cases) {
      const padded = secret.padEnd(Math.ceil(secret.length / 4) * 4, '=');
      expect(signatureKey(`whsec_${padded}`).equals(signatureKey(secret))).toBe(true);
      expect(signatureKey(secret).equals(Buffer.from(padded, 'base64'))).toBe(true);
    }
  });

  it.each(['whsec_not base64!', 'whsec_abcde', 'whsec_ab=c', 'whsec_abc==', 'whsec_ab===', 'whsec_-_-_'])('refuses %s', (secret) => {
    expect(() => signatureKey(secret)).toThrow(/base64/);
  });
});

describe('standardSignature round trip with the official standardwebhooks library', () => {
  const oldSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const newSecret = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
  const otherSecret = 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  const msgId = 'msg_2n4nJ8kWzLQ3vT5yXc9aBd7Hq1';
  const body = webhookBody('invoice.paid', Date.UTC(2026, 0, 15, 12), '{"amount":1200,"note":"café ☕ 😀"}');

  function headers(signature: string, ts: number) {
    return { 'webhook-id': msgId, 'webhook-timestamp': String(ts), 'webhook-signature': signature };
  }

  it('verifies our header and returns the payload', () => {
    const ts = Math.floor(Date.now() / 1000);
    const sig = standardSignature([signatureKey(newSecret)], msgId, ts, body);
    expect(sig).toBe(new Webhook(newSecret).sign(msgId, new Date(ts * 1000), body));
    expect(new Webhook(newSecret).verify(body, headers(sig, ts))).toEqual(JSON.parse(body));
    expect(new Webhook(newSecret).verify(Buffer.from(body), headers(sig, ts))).toEqual(JSON.parse(body));
    expect(() => new Webhook(otherSecret).verify(body, headers(sig, ts))).toThrow(WebhookVerificationError);
    expect(() => new Webhook(newSecret).verify(`${body} `, headers(sig, ts))).toThrow(WebhookVerificationError);
  });

  it('carries two signatures during a rotation; a verifier knowing either secret accepts', () => {
    const ts = Math.floor(Date.now() / 1000);
    const sig = standardSignature([signatureKey(newSecret), signatureKey(oldSecret)], msgId, ts, body);
    const parts = sig.split(' ');
    expect(parts).toHaveLength(2);
    expect(parts[0]).toBe(standardSignature([signatureKey(newSecret)], msgId, ts, body));
    expect(parts[1]).toBe(standardSignature([signatureKey(oldSecret)], msgId, ts, body));
    expect(new Webhook(oldSecret).verify(body, headers(sig, ts))).toEqual(JSON.parse(body));
    expect(new Webhook(newSecret).verify(body, headers(sig, ts))).toEqual(JSON.parse(body));
    expect(() => new Webhook(otherSecret).verify(body, headers(sig, ts))).toThrow(WebhookVerificationError);
  });

  it('signs the same with a KeyObject as with the raw key, and the official library verifies it', () => {
    const ts = Math.floor(Date.now() / 1000);
    const sig = standardSignature([signingKeyObject(newSecret), signingKeyObject(oldSecret)], msgId, ts, body);
    expect(sig).toBe(standardSignature([signatureKey(newSecret), signatureKey(oldSecret)], msgId, ts, body));
    expect(new Webhook(oldSecret).verify(body, headers(sig, ts))).toEqual(JSON.parse(body));
    const config = { header: 'x-sig', content: 'timestamp_body', encoding: 'hex' } as const;
    expect(compatSignature(config, [signingKeyObject(newSecret)], ts, body)).toBe(compatSignature(config, [signatureKey(newSecret)], ts, body));
    expect(() => signingKeyObject('whsec_')).toThrow(/can't be empty/);
  });

  it('refuses to sign with no key or an empty key', () => {
    expect(() => standardSignature([], msgId, 1, body)).toThrow(/at least one/);
    expect(() => standardSignature([Buffer.alloc(0)], msgId, 1, body)).toThrow(/can't be empty/);
  });
});

describe('compatSignature', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const key = signatureKey(secret);
  const ts = 1614265330;
  const body = '{"test": 2432232314}';

  // Expected values computed outside Node with `openssl dgst -sha256 -mac HMAC`.
  it('timestamp_body, hex, no prefix', () => {
    const config = { header: 'X-Signature', content: 'timestamp_body', encoding: 'hex' } as const;
    expect(compatSignature(config, [key], ts, body)).toBe('e96203c6de850e7dc1fde7489ef6140b402d3a5a64fe250cd2eef9830fac1cef');
  });

  it('body, base64, with a prefix', () => {
    const config = { header: 'X-Hub-Signature-256', content: 'body', encoding: 'base64', prefix: 'sha256=' } as const;
    expect(compatSignature(config, [key], ts, body)).toBe('sha256=4stPUlFXJTnUWL+4p621M7CIAeanlEZ+Bvdx3ruwgYs=');
  });

  it('one value per key, space-separated, newest first (checked with WebCrypto)', async () => {
    const newKey = signatureKey('whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD');
    const unicodeBody = Buffer.from('{"name":"Zoë 😀"}');
    const config = { header: 'X-Sig', content: 'timestamp_body', encoding: 'hex', prefix: 'v=' } as const;
    const value = compatSignature(config, [newKey, key], 1700000000, unicodeBody);
    const expected = await Promise.all(
      [newKey, key].map(async (k) => `v=${await webCryptoHmac(k, Buffer.concat([Buffer.from('1700000000.'), unicodeBody]), 'hex')}`),
    );
    expect(value).toBe(expected.join(' '));
    const b64 = compatSignature({ ...config, content: 'body', encoding: 'base64', prefix: undefined }, [key], 1, unicodeBody);
    expect(b64).toBe(await webCryptoHmac(key, unicodeBody, 'base64'));
    expect(b64).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  it('checks keys and timestamp like standardSignature', () => {
    const config = { header: 'X-Sig', content: 'body', encoding: 'hex' } as const;
    expect(() => compatSignature(config, [], ts, body)).toThrow(/at least one/);
    expect(() => compatSignature(config, [key], -1, body)).toThrow(/non-negative integer/);
  });
});

describe('webhookBody', () => {
  it('builds the exact body with an ISO 8601 UTC timestamp', () => {
    expect(webhookBody('user.created', Date.UTC(2026, 0, 15, 12, 30, 5, 42), '{"id":1}')).toBe(
      '{"type":"user.created","timestamp":"2026-01-15T12:30:05.042Z","data":{"id":1}}',
    );
  });

  it('inserts the payload JSON verbatim: spacing, key order, escapes, numbers', () => {
    const payload = '{ "b" : 1.10, "a":[ 1e3 ,"\\u00e9"], "z": null }';
    const body = webhookBody('a.b', 0, payload);
    expect(body).toBe(`{"type":"a.b","timestamp":"1970-01-01T00:00:00.000Z","data":${payload}}`);
    expect(JSON.parse(body)).toEqual({ type: 'a.b', timestamp: '1970-01-01T00:00:00.000Z', data: JSON.parse(payload) });
  });

  it('escapes the event type as a JSON string', () => {
    const body = webhookBody('we"ird\\type', 0, 'null');
    expect(JSON.parse(body).type).toBe('we"ird\\type');
  });

  it('throws a RangeError for an invalid time', () => {
    expect(() => webhookBody('a', Number.NaN, '{}')).toThrow(RangeError);
  });
});

async function webCryptoHmac(key: Buffer, data: Buffer, encoding: 'hex' | 'base64'): Promise<string> {
  const cryptoKey = await webcrypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return Buffer.from(await webcrypto.subtle.sign('HMAC', cryptoKey, data)).toString(encoding);
}
