import { Webhook, WebhookVerificationError as OfficialError } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { refusal } from './testing/refusal.ts';
import { newSecret, signedHeaders, wirehookBody } from './testing/sender.ts';
import { WebhookVerificationError } from './verification-error.ts';
import { verify, type VerifyOptions } from './verify.ts';

const T = 1_767_322_245; // a fixed "now", Unix seconds
const at = (seconds: number): VerifyOptions => ({ now: () => seconds * 1000 });

afterEach(() => {
  vi.useRealTimers();
});

describe('the published Standard Webhooks vector', () => {
  // standard-webhooks/standard-webhooks libraries/*: "sign function works".
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const payload = '{"test": 2432232314}';
  const headers = {
    'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    'webhook-timestamp': '1614265330',
    'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  };

  it('verifies at its own time', () => {
    const webhook = verify(payload, headers, secret, at(1614265330));
    expect(webhook).toEqual({ id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: 1614265330, event: { test: 2432232314 }, body: payload });
  });

  it('verifies with the secret given without its whsec_ prefix, as the official libraries allow', () => {
    expect(verify(payload, headers, 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', at(1614265330)).id).toBe(headers['webhook-id']);
  });

  it('refuses the vector with one character of the signature, the body, the id or the timestamp changed', () => {
    const options = at(1614265330);
    const changed = [
      () => verify(payload, { ...headers, 'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OF=' }, secret, options),
      () => verify('{"test": 2432232315}', headers, secret, options),
      () => verify(payload, { ...headers, 'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJeK' }, secret, options),
      () => verify(payload, { ...headers, 'webhook-timestamp': '1614265331' }, secret, options),
    ];
    for (const attempt of changed) expect(refusal(attempt).reason).toBe('no_matching_signature');
  });
});

describe('interoperability with the official standardwebhooks library', () => {
  const secret = newSecret();
  const body = wirehookBody({ amount: 4200, currency: 'EUR', note: 'café ☕' });

  it('accepts what the official library signs, as text and as bytes', () => {
    const headers = signedHeaders(secret, body, { id: 'msg_1', timestampSeconds: T });
    const expected = { id: 'msg_1', timestamp: T, event: JSON.parse(body), body };
    expect(verify(body, headers, secret, at(T))).toEqual(expected);
    expect(verify(Buffer.from(body), headers, secret, at(T))).toEqual(expected);
    expect(verify(new TextEncoder().encode(body), headers, secret, at(T))).toEqual(expected);
    expect(verify(new TextEncoder().encode(body).buffer, headers, secret, at(T))).toEqual(expected);
  });

  // Each case through both verifiers, at the same time: the decisions must agree.
  const other = newSecret();
  const good = signedHeaders(secret, body, { id: 'msg_2', timestampSeconds: T });
  const cases: [string, string, Record<string, string>][] = [
    ['valid', body, good],
    ['tampered body', body.replace('4200', '4201'), good],
    ['signed with another secret', body, signedHeaders(other, body, { timestampSeconds: T })],
    ['rotation: another secret first, then ours', body, signedHeaders([other, secret], body, { timestampSeconds: T })],
    ['301 s old', body, signedHeaders(secret, body, { timestampSeconds: T - 301 })],
    ['299 s old', body, signedHeaders(secret, body, { timestampSeconds: T - 299 })],
    ['301 s ahead', body, signedHeaders(secret, body, { timestampSeconds: T + 301 })],
    ['no webhook-id', body, { ...good, 'webhook-id': '' }],
    ['unknown signature version only', body, { ...good, 'webhook-signature': good['webhook-signature']!.replace('v1,', 'v2,') }],
  ];

  it.each(cases)('%s: ours decides as the official library does', (_name, payload, headers) => {
    vi.useFakeTimers({ now: T * 1000 });
    const official = decision(() => new Webhook(secret).verify(payload, headers), OfficialError);
    const ours = decision(() => verify(payload, headers, secret), WebhookVerificationError);
    expect(ours).toBe(official);
  });

  it('decides "valid" and "tampered" differently (the comparison above can fail)', () => {
    vi.useFakeTimers({ now: T * 1000 });
    expect(decision(() => verify(body, good, secret), WebhookVerificationError)).toBe('accepted');
    expect(decision(() => verify(body.replace('4200', '4201'), good, secret), WebhookVerificationError)).toBe('refused');
  });

  function decision(fn: () => unknown, refusalClass: new (...args: never[]) => Error): 'accepted' | 'refused' {
    try {
      fn();
      return 'accepted';
    } catch (err) {
      if (err instanceof refusalClass) return 'refused';
      throw err;
    }
  }
});

describe('rotation', () => {
  const [oldSecret, newSecretValue, unrelated] = [newSecret(), newSecret(), newSecret()];
  const body = wirehookBody({ n: 1 });
  const bothSigned = signedHeaders([newSecretValue, oldSecret], body, { timestampSeconds: T });

  it('accepts a header with two signatures when either matches the secret', () => {
    expect(bothSigned['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(body, bothSigned, oldSecret, at(T)).body).toBe(body);
    expect(verify(body, bothSigned, newSecretValue, at(T)).body).toBe(body);
    expect(refusal(() => verify(body, bothSigned, unrelated, at(T))).reason).toBe('no_matching_signature');
  });

  it('accepts a signature made with any of several secrets given to the receiver', () => {
    const byOld = signedHeaders(oldSecret, body, { timestampSeconds: T });
    const byNew = signedHeaders(newSecretValue, body, { timestampSeconds: T });
    expect(verify(body, byOld, [newSecretValue, oldSecret], at(T)).body).toBe(body);
    expect(verify(body, byNew, [newSecretValue, oldSecret], at(T)).body).toBe(body);
    expect(refusal(() => verify(body, byOld, [newSecretValue, unrelated], at(T))).reason).toBe('no_matching_signature');
  });
});

describe('timestamp tolerance', () => {
  const secret = newSecret();
  const body = wirehookBody({ n: 2 });
  const signedAt = (offset: number) => signedHeaders(secret, body, { timestampSeconds: T + offset });

  it('accepts up to 300 s either way by default', () => {
    for (const offset of [-300, -299, 0, 299, 300]) expect(verify(body, signedAt(offset), secret, at(T)).timestamp).toBe(T + offset);
  });

  it('refuses 301 s old, saying by how much and the tolerance, with a clock hint', () => {
    const err = refusal(() => verify(body, signedAt(-301), secret, at(T)));
    expect(err.reason).toBe('timestamp_too_old');
    expect(err.message).toContain('301 s in the past');
    expect(err.message).toContain('tolerance of 300 s');
    expect(err.message).toContain('clock');
  });

  it('refuses 301 s in the future, saying by how much and the tolerance, with a clock hint', () => {
    const err = refusal(() => verify(body, signedAt(301), secret, at(T)));
    expect(err.reason).toBe('timestamp_in_future');
    expect(err.message).toContain('301 s in the future');
    expect(err.message).toContain('tolerance of 300 s');
    expect(err.message).toContain('clock is behind');
  });

  it('refuses a toleranceSeconds that would switch the replay window off (NaN, Infinity, negative)', () => {
    for (const toleranceSeconds of [Number.NaN, Number.POSITIVE_INFINITY, -1]) {
      expect(() => verify(body, signedAt(-10_000), secret, { ...at(T), toleranceSeconds })).toThrow(TypeError);
    }
  });

  it('uses toleranceSeconds when given', () => {
    expect(verify(body, signedAt(-10), secret, { ...at(T), toleranceSeconds: 10 }).timestamp).toBe(T - 10);
    expect(refusal(() => verify(body, signedAt(-11), secret, { ...at(T), toleranceSeconds: 10 })).reason).toBe('timestamp_too_old');
    expect(refusal(() => verify(body, signedAt(11), secret, { ...at(T), toleranceSeconds: 10 })).reason).toBe('timestamp_in_future');
  });

  it('uses the real clock by default', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verify(body, signedHeaders(secret, body, { timestampSeconds: now }), secret).timestamp).toBe(now);
    expect(refusal(() => verify(body, signedHeaders(secret, body, { timestampSeconds: now - 400 }), secret)).reason).toBe('timestamp_too_old');
  });
});

describe('headers', () => {
  const secret = newSecret();
  const body = wirehookBody({ n: 3 });
  const headers = signedHeaders(secret, body, { timestampSeconds: T });

  it('reads a Web Headers object, and plain objects with names in any case', () => {
    const upper = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    expect(verify(body, new Headers(headers), secret, at(T)).body).toBe(body);
    expect(verify(body, upper, secret, at(T)).body).toBe(body);
  });

  it('joins a repeated signature header given as an array', () => {
    const other = signedHeaders(newSecret(), body, { id: headers['webhook-id']!, timestampSeconds: T });
    const repeated = { ...headers, 'webhook-signature': [other['webhook-signature']!, headers['webhook-signature']!] };
    expect(verify(body, repeated, secret, at(T)).body).toBe(body);
  });

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('refuses a request without %s, naming it', (name) => {
    const { [name]: _dropped, ...rest } = headers;
    const err = refusal(() => verify(body, rest, secret, at(T)));
    expect(err.reason).toBe('missing_header');
    expect(err.message).toContain(`the ${name} header is missing`);
    expect(err.message).toContain('proxy');
  });

  it.each(['1614265330.5', '-5', 'soon', '99999999999999999999'])('refuses webhook-timestamp %j as invalid_header', (value) => {
    const err = refusal(() => verify(body, { ...headers, 'webhook-timestamp': value }, secret, at(T)));
    expect(err.reason).toBe('invalid_header');
    expect(err.message).toContain('Unix seconds');
  });

  it('says so when the signature header holds no v1 signature', () => {
    const err = refusal(() => verify(body, { ...headers, 'webhook-signature': 'v1a,abc' }, secret, at(T)));
    expect(err.reason).toBe('no_matching_signature');
    expect(err.message).toContain('holds no signature of the form v1,<base64>');
  });
});

describe('the secret', () => {
  const body = wirehookBody({ n: 4 });
  const headers = signedHeaders(newSecret(), body, { timestampSeconds: T });

  const cases: [string, unknown, string][] = [
    ['an API key', 'sk_live_0123456789abcdef0123456789abcdef', 'API key (sk_…)'],
    ['a test API key', 'sk_test_0123456789abcdef', 'API key (sk_…)'],
    ['a signature', 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=', 'is a signature'],
    ['empty', '', 'is empty'],
    ['undefined (an unset environment variable)', undefined, 'is undefined'],
    ['quoted', '"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"', 'wrapped in quotes'],
    ['followed by a newline', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n', 'whitespace'],
    ['not base64 after whsec_', 'whsec_not-base64!', 'not whsec_ followed by base64'],
    ['only the prefix', 'whsec_', 'not whsec_ followed by base64'],
    ['an Ed25519 key', 'whsk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'asymmetric'],
  ];

  it.each(cases)('refuses %s as bad_secret_format, saying what it is, without echoing it', (_name, secret, says) => {
    const err = refusal(() => verify(body, headers, secret as string, at(T)));
    expect(err.reason).toBe('bad_secret_format');
    expect(err.message).toContain(says);
    if (typeof secret === 'string' && secret.trim().length > 'whsec_'.length) expect(err.message).not.toContain(secret.trim());
  });

  it('refuses an empty list and names the bad one in a list', () => {
    expect(refusal(() => verify(body, headers, [], at(T))).message).toContain('list of secrets is empty');
    const err = refusal(() => verify(body, headers, [newSecret(), 'sk_live_abc'], at(T)));
    expect(err.reason).toBe('bad_secret_format');
    expect(err.message).toContain('secret #2');
  });

  it('checks the secret before the request, so a misconfiguration shows on any request', () => {
    expect(refusal(() => verify(body, {}, 'sk_live_abc', at(T))).reason).toBe('bad_secret_format');
  });
});

describe('the body', () => {
  const secret = newSecret();
  const body = wirehookBody({ items: [{ sku: 'A-1', qty: 2 }], note: 'é' });
  const headers = signedHeaders(secret, body, { timestampSeconds: T });

  it.each([
    ['a parsed object', JSON.parse(body), 'already-parsed object'],
    ['undefined', undefined, 'no body was read'],
    ['"[object Object]"', '[object Object]', 'an object was converted to a string'],
  ])('refuses %s as body_not_raw, with how to get the raw body', (_name, payload, says) => {
    const err = refusal(() => verify(payload as string, headers, secret, at(T)));
    expect(err.reason).toBe('body_not_raw');
    expect(err.message).toContain(says);
    expect(err.message).toContain('express.raw({ type: "application/json", limit: "2mb" })');
    expect(err.message).toContain('request.text()');
  });

  it('proves a pretty-printed body was re-encoded: body_reencoded', () => {
    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    const err = refusal(() => verify(pretty, headers, secret, at(T)));
    expect(err.reason).toBe('body_reencoded');
    expect(err.message).toContain('matches its compact JSON form');
    expect(err.message).toContain('raw request body');
  });

  it('hints at re-encoding when the body is not compact JSON and nothing matches', () => {
    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    const err = refusal(() => verify(pretty, headers, newSecret(), at(T)));
    expect(err.reason).toBe('no_matching_signature');
    expect(err.message).toContain('not compact JSON');
    expect(err.message).toContain('check the secret');
  });

  it('points at the secret when the body is compact JSON and nothing matches', () => {
    const err = refusal(() => verify(body, headers, newSecret(), at(T)));
    expect(err.reason).toBe('no_matching_signature');
    expect(err.message).toContain('none of the 1 signature in webhook-signature matches this body with the 1 secret given');
    expect(err.message).toContain("this endpoint's own");
    expect(err.message).not.toContain('compact');
  });

  it('refuses a validly signed body that is not JSON as invalid_body', () => {
    const text = 'not json';
    const err = refusal(() => verify(text, signedHeaders(secret, text, { timestampSeconds: T }), secret, at(T)));
    expect(err.reason).toBe('invalid_body');
    expect(err.message).toContain('signature is valid but the body is not JSON');
  });
});

describe('WebhookVerificationError', () => {
  it('has a status per reason and a { error, message } body', () => {
    const err = new WebhookVerificationError('no_matching_signature', 'why');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('WebhookVerificationError');
    expect(err.status).toBe(400);
    expect(err.toBody()).toEqual({ error: 'no_matching_signature', message: 'why' });
    expect(new WebhookVerificationError('body_too_large', '').status).toBe(413);
    expect(new WebhookVerificationError('bad_secret_format', '').status).toBe(500);
    expect(new WebhookVerificationError('body_not_raw', '').status).toBe(500);
  });
});
