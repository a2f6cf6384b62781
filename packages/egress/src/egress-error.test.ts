import { describe, expect, it } from 'vitest';
import { classifyError, EgressError, timeoutError } from './egress-error.ts';
import { statusError } from './http-egress.ts';

function coded(code: string, message: string, name = 'Error'): Error {
  return Object.assign(new Error(message), { code, name });
}

describe('classifyError', () => {
  it.each([
    [coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9'), 'connection', 'connection: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:9)'],
    [coded('ECONNRESET', 'read ECONNRESET'), 'connection', 'connection: ECONNRESET (read ECONNRESET)'],
    [coded('UND_ERR_SOCKET', 'other side closed'), 'connection', 'connection: UND_ERR_SOCKET (other side closed)'],
    [coded('HPE_INVALID_CONSTANT', 'Expected HTTP/'), 'connection', 'connection: HPE_INVALID_CONSTANT (Expected HTTP/)'],
    [
      coded('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'),
      'tls',
      'tls: UNABLE_TO_VERIFY_LEAF_SIGNATURE (unable to verify the first certificate)',
    ],
    [coded('CERT_HAS_EXPIRED', 'certificate has expired'), 'tls', 'tls: CERT_HAS_EXPIRED (certificate has expired)'],
    [coded('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'), 'tls', 'tls: DEPTH_ZERO_SELF_SIGNED_CERT (self-signed certificate)'],
    [
      coded('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"),
      'tls',
      "tls: ERR_TLS_CERT_ALTNAME_INVALID (Hostname/IP does not match certificate's altnames)",
    ],
    [coded('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number'), 'tls', 'tls: ERR_SSL_WRONG_VERSION_NUMBER (wrong version number)'],
    [coded('ENOTFOUND', 'getaddrinfo ENOTFOUND x'), 'dns', 'dns: ENOTFOUND (getaddrinfo ENOTFOUND x)'],
    [coded('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error'), 'timeout', 'timeout: no response within 15 s'],
    [coded('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error'), 'timeout', 'timeout: no response within 15 s'],
    [Object.assign(new Error('This operation was aborted'), { name: 'AbortError' }), 'timeout', 'timeout: no response within 15 s'],
    [new EgressError('blocked', '10.0.0.1 is a private address'), 'blocked', 'blocked: 10.0.0.1 is a private address'],
    [new Error('no code\nat all'), 'connection', 'connection: no code at all'],
    ['a string', 'connection', 'connection: a string'],
    [undefined, 'connection', 'connection: undefined'],
  ])('%s → %s', (err, kind, error) => {
    expect(classifyError(err)).toEqual({ kind, error });
  });

  it('uses the first error of an AggregateError (one per address tried)', () => {
    const err = new AggregateError([coded('ECONNREFUSED', 'connect ECONNREFUSED ::1:9'), coded('ECONNREFUSED', 'x')], '');
    expect(classifyError(err)).toEqual({ kind: 'connection', error: 'connection: ECONNREFUSED (connect ECONNREFUSED ::1:9)' });
  });

  it('looks through a cause without a code', () => {
    const err = new Error('fetch failed', { cause: coded('CERT_HAS_EXPIRED', 'certificate has expired') });
    expect(classifyError(err).kind).toBe('tls');
  });

  it('words timeouts with the limit it is given', () => {
    expect(classifyError(coded('UND_ERR_BODY_TIMEOUT', 'Body Timeout Error'), 2500).error).toBe('timeout: no response within 2.5 s');
    expect(timeoutError(15_000).message).toBe('timeout: no response within 15 s');
  });

  it('keeps long messages to one short line', () => {
    const { error } = classifyError(coded('ECONNRESET', 'x'.repeat(1000)));
    expect(error.length).toBeLessThan(240);
    expect(error.endsWith('…)')).toBe(true);
  });
});

describe('statusError', () => {
  it.each([
    [200, undefined, null],
    [204, undefined, null],
    [299, undefined, null],
    [199, undefined, 'http_status: 199'],
    [300, undefined, 'http_status: 300'],
    [301, 'https://a.example/x', 'redirect: 301 to https://a.example/x not followed'],
    [307, ['/relative', '/second'], 'redirect: 307 to /relative not followed'],
    [308, '', 'http_status: 308'],
    [404, 'https://a.example/', 'http_status: 404'],
    [503, undefined, 'http_status: 503'],
  ] as const)('%i with location %j', (status, location, expected) => {
    expect(statusError(status, location as string | string[] | undefined)).toBe(expected);
  });

  it('shortens a very long location', () => {
    const error = statusError(302, `https://a.example/${'x'.repeat(2000)}`)!;
    expect(error.length).toBeLessThan(560);
    expect(error).toMatch(/^redirect: 302 to https:\/\/a\.example\/x+… not followed$/);
  });
});
