import { describe, expect, it } from 'vitest';
import { openApiCheck } from './openapi-check.ts';

// The check every e2e response goes through must itself fail on drift, or the suites prove nothing.
const url = (path: string) => `http://127.0.0.1:1${path}`;
// What every authenticated response carries: the rate-limit headers and its request id.
const limited = () => new Headers({ 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '599', 'x-ratelimit-reset': '1800000000', 'x-request-id': 'req-1' });
const endpoint = {
  id: 'ep_1',
  consumer_id: 'con_1',
  url: 'https://example.com/hook',
  description: null,
  event_types: null,
  fixed_ip: false,
  status: 'active',
  disabled_reason: null,
  failing_since: null,
  created_at: 1_767_225_600_000,
  retry: { count: 7, interval: 'progressive' },
  compat_signature: null,
  headers: null,
  tls: null,
  auth: null,
  transformation: null,
  ordering: 'none',
  rate_limit: null,
  type: 'http',
};

describe('openApiCheck', () => {
  const check = openApiCheck();

  it('passes a response as documented', () => {
    expect(check.problems('GET', url('/v1/endpoints'), 200, limited(), { items: [endpoint], next_cursor: null })).toEqual([]);
    expect(check.problems('DELETE', url('/v1/endpoints/ep_1'), 204, limited(), undefined)).toEqual([]);
    expect(check.problems('GET', url('/v1/endpoints/ep_1'), 404, limited(), { error: 'not_found', message: 'endpoint ep_1 not found' })).toEqual([]);
  });

  it('fails a status the operation does not list', () => {
    expect(check.problems('GET', url('/v1/endpoints/ep_1'), 409, limited(), { error: 'conflict', message: 'x' }).join()).toMatch(/does not list status 409/);
  });

  it('fails a body with a field the schema lacks, or without one it requires', () => {
    expect(check.problems('GET', url('/v1/endpoints'), 200, limited(), { items: [{ ...endpoint, secret: 'whsec_x' }], next_cursor: null }).join()).toMatch(
      /additional properties/,
    );
    const { retry: _dropped, ...withoutRetry } = endpoint;
    expect(check.problems('GET', url('/v1/endpoints'), 200, limited(), { items: [withoutRetry], next_cursor: null }).join()).toMatch(
      /required property 'retry'/,
    );
  });

  it('fails a missing header the document promises, and a body where none is listed', () => {
    expect(check.problems('GET', url('/v1/endpoints'), 200, new Headers(), { items: [] }).join()).toMatch(/x-ratelimit-limit is missing/);
    expect(check.problems('DELETE', url('/v1/endpoints/ep_1'), 204, limited(), { deleted: true }).join()).toMatch(/lists none/);
  });

  it('fails a path no operation has, unless it is an error any path can get', () => {
    expect(check.problems('GET', url('/v1/secret-things'), 200, limited(), {}).join()).toMatch(/no operation/);
    expect(check.problems('GET', url('/v1/secret-things'), 404, limited(), { error: 'not_found', message: 'no route' })).toEqual([]);
  });
});
