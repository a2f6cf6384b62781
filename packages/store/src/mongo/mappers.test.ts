// The MongoDB mappers on documents written before a field existed — what runs here without a
// server: an endpoint without `transformation`, a rollup without `errors.transformation`.
import { storedTransformation } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { EndpointDoc } from './documents.ts';
import { toRollup } from './endpoint-stats-repo.ts';
import { toEndpoint, toJobEndpoint } from './mappers.ts';

const OLD_ENDPOINT: Omit<EndpointDoc, 'secrets'> = {
  _id: 'ep_old',
  orgId: 'org_1',
  env: 'live',
  consumerId: 'con_1',
  url: 'https://hooks.example/old',
  description: null,
  eventTypes: null,
  fixedIp: false,
  status: 'active',
  disabledReason: null,
  failingSince: null,
  createdAt: 1,
  retry: { count: 7, interval: 'progressive' },
  compatSignature: null,
};

describe('MongoDB mappers on older documents', () => {
  it('an endpoint document without transformation reads as none, in an API read and in a job', () => {
    expect(toEndpoint(OLD_ENDPOINT).transformation).toBeNull();
    expect(toJobEndpoint(OLD_ENDPOINT).transformation).toBeNull();
  });

  it('a job’s endpoint carries whether its transformation runs and its hash, never the code', () => {
    const transformation = storedTransformation({ code: 'function handler(w) { return w }', enabled: true });
    const { code: _code, ...projected } = transformation; // the claim's projection leaves the code out
    expect(toJobEndpoint({ ...OLD_ENDPOINT, transformation: projected as typeof transformation }).transformation).toEqual({
      enabled: true,
      sha256: transformation.sha256,
    });
    expect(toEndpoint({ ...OLD_ENDPOINT, transformation }).transformation).toEqual(transformation);
  });

  it('a rollup document made before the transformation class counts none of it', () => {
    const rollup = toRollup({
      _id: 'r',
      orgId: 'org_1',
      env: 'live',
      endpointId: 'ep_old',
      grainMs: 300_000,
      at: 0,
      expiresAt: 1,
      attempts: 3,
      succeeded: 2,
      errors: { auth: 1 },
    });
    expect(rollup.errors).toMatchObject({ auth: 1, transformation: 0, http_5xx: 0 });
    expect(rollup).toMatchObject({ attempts: 3, succeeded: 2 });
  });
});
