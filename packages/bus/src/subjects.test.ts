// A dispatch job's tenant header: what publishers write is what a dispatcher reads, and a header
// it cannot read names no tenant (the claim then tells), never a wrong one.
import type { Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { DISPATCH_TENANT_HEADER, dispatchJobHeaders, dispatchJobTenant } from './subjects.ts';

describe('a dispatch job’s tenant header', () => {
  it('reads back the tenant it was written with, live and test', () => {
    for (const tenant of [
      { orgId: 'org_01KF0RDVD0F3FZ0KTZ69Q28J97', env: 'live' },
      { orgId: 'org_a', env: 'test' },
    ] as Tenant[]) {
      expect(dispatchJobHeaders(tenant)).toEqual({ 'Wirehook-Tenant': `${tenant.orgId}/${tenant.env}` });
      expect(dispatchJobTenant(dispatchJobHeaders(tenant))).toEqual(tenant);
    }
  });

  it('names no tenant without the header (an older publisher) or with one it cannot read', () => {
    expect(dispatchJobTenant({})).toBeUndefined();
    expect(dispatchJobTenant({ traceparent: '00-…' })).toBeUndefined();
    for (const value of ['', 'org_a', 'org_a/', '/live', 'org_a/staging', 'acct_a/live', 'org_a/live/x', 'org_a/b/live', 'org_a/LIVE']) {
      expect(dispatchJobTenant({ [DISPATCH_TENANT_HEADER]: value }), value).toBeUndefined();
    }
  });
});
