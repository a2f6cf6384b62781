import { describe, expect, it } from 'vitest';
import type { OrgId } from '@wirehook/core';
import { usageCounters } from './message-intake.ts';

const now = Date.UTC(2026, 10, 22, 13, 0, 0);
const orgId = 'org_01KAAAAAAAAAAAAAAAAAAAAAAA' as OrgId;

describe('usageCounters', () => {
  it('a live send counts toward the org month, limited by the plan', () => {
    expect(usageCounters({ orgId, env: 'live' }, 'starter', now)).toEqual([
      expect.objectContaining({ key: `live:${orgId}:2026-11`, limit: 250_000, increment: true }),
    ]);
  });

  it('a test send counts toward its day (1,000) and only reads the live month', () => {
    const [month, day] = usageCounters({ orgId, env: 'test' }, 'free', now);
    expect(month).toMatchObject({ key: `live:${orgId}:2026-11`, limit: null, increment: false });
    expect(day).toMatchObject({ key: `test:${orgId}:2026-11-22`, limit: 1_000, increment: true });
    expect(day!.expiresAt).toBeGreaterThan(now);
  });
});
