import type { AlertTargetId, OrgId } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { NoticeDelivery } from '../../src/ports/alert-settings-port.ts';
import type { PoolAddress } from '../../src/ports/egress-ip-port.ts';
import type { Fixtures } from './fixtures.ts';

const DAY = 24 * 60 * 60 * 1000;
const NOTICE = 30 * DAY;
const v4 = (ip: string): PoolAddress => ({ ip, family: 4 });
const v6 = (ip: string): PoolAddress => ({ ip, family: 6 });

/** Contract of EgressIpRepo: the fixed IP pool as last seen, and the addresses leaving it listed for a notice period. */
export function describeEgressIpContract(f: Fixtures): void {
  // The pool is the installation's, not a tenant's: each test starts from an empty list.
  async function fresh(): Promise<number> {
    f.clock.advance(DAY);
    const now = f.clock.now();
    await f.store.egressIps.sync([], now, 0);
    await f.store.egressIps.sync([], now + 1, 0);
    expect(await f.store.egressIps.list(now + 1)).toEqual([]);
    // Changes earlier tests left untold: told (to nobody).
    for (let c = await f.store.egressIps.pendingChange(); c !== null; c = await f.store.egressIps.pendingChange()) {
      expect(await f.store.egressIps.advanceChange(c.id, c.cursor, c.cursor, true, [])).toBe(true);
    }
    return now + 2;
  }

  /** An organization with `fixed` fixed_ip endpoints and `direct` direct ones. */
  async function orgWith(fixed: number, direct: number): Promise<OrgId> {
    const t = await f.tenant();
    const consumer = await f.consumer(t);
    for (let i = 0; i < fixed; i++) await f.createEndpoint(t, consumer.id, { fixedIp: true });
    for (let i = 0; i < direct; i++) await f.createEndpoint(t, consumer.id, { fixedIp: false });
    return t.orgId;
  }

  const notice = (orgId: OrgId, n: number): NoticeDelivery => ({
    id: `ntc_egress_${orgId}_${n}`,
    orgId,
    targetId: 'owner' as AlertTargetId,
    type: 'alert.egress_ips',
    body: '{}',
    createdAt: f.clock.now(),
  });

  describe('egress IPs', () => {
    it('a first pool is added whole and listed current, IPv4 first, by address; the same pool again changes nothing', async () => {
      const now = await fresh();
      const pool = [v6('2001:db8::7'), v4('203.0.113.9'), v4('203.0.113.10')];
      expect(await f.store.egressIps.sync(pool, now, NOTICE)).toEqual({ added: ['2001:db8::7', '203.0.113.9', '203.0.113.10'], restored: [], retiring: [] });
      expect(await f.store.egressIps.list(now)).toEqual([
        { ip: '203.0.113.10', family: 4, retiringAt: null },
        { ip: '203.0.113.9', family: 4, retiringAt: null },
        { ip: '2001:db8::7', family: 6, retiringAt: null },
      ]);
      expect(await f.store.egressIps.sync(pool, now + DAY, NOTICE)).toEqual({ added: [], restored: [], retiring: [] });
    });

    it('an address taken out is listed as retiring until the notice ends, keeps its time, and is dropped after it', async () => {
      const now = await fresh();
      await f.store.egressIps.sync([v4('198.51.100.1'), v4('198.51.100.2')], now, NOTICE);
      expect(await f.store.egressIps.sync([v4('198.51.100.2'), v4('198.51.100.3')], now + 1, NOTICE)).toEqual({
        added: ['198.51.100.3'],
        restored: [],
        retiring: ['198.51.100.1'],
      });
      const retiringAt = now + 1 + NOTICE;
      const current = [
        { ip: '198.51.100.2', family: 4, retiringAt: null },
        { ip: '198.51.100.3', family: 4, retiringAt: null },
      ];
      expect(await f.store.egressIps.list(now + 1)).toEqual([...current, { ip: '198.51.100.1', family: 4, retiringAt }]);
      // A restart with the same new pool: the notice keeps running from the first time it was seen.
      expect(await f.store.egressIps.sync([v4('198.51.100.2'), v4('198.51.100.3')], now + DAY, NOTICE)).toEqual({ added: [], restored: [], retiring: [] });
      expect(await f.store.egressIps.list(retiringAt - 1)).toEqual([...current, { ip: '198.51.100.1', family: 4, retiringAt }]);
      expect(await f.store.egressIps.list(retiringAt)).toEqual(current);
      await f.store.egressIps.sync([v4('198.51.100.2'), v4('198.51.100.3')], retiringAt, NOTICE);
      // Dropped: taken back later, it is new again.
      expect(await f.store.egressIps.sync([v4('198.51.100.1'), v4('198.51.100.2'), v4('198.51.100.3')], retiringAt + 1, NOTICE)).toEqual({
        added: ['198.51.100.1'],
        restored: [],
        retiring: [],
      });
    });

    it('an address put back while retiring is current again (restored, not added)', async () => {
      const now = await fresh();
      await f.store.egressIps.sync([v4('192.0.2.1'), v6('2001:db8::1')], now, NOTICE);
      await f.store.egressIps.sync([v4('192.0.2.1')], now + 1, NOTICE);
      expect((await f.store.egressIps.list(now + 1)).at(-1)).toEqual({ ip: '2001:db8::1', family: 6, retiringAt: now + 1 + NOTICE });
      expect(await f.store.egressIps.sync([v4('192.0.2.1'), v6('2001:db8::1')], now + 2, NOTICE)).toEqual({
        added: [],
        restored: ['2001:db8::1'],
        retiring: [],
      });
      expect(await f.store.egressIps.list(now + 2)).toEqual([
        { ip: '192.0.2.1', family: 4, retiringAt: null },
        { ip: '2001:db8::1', family: 6, retiringAt: null },
      ]);
    });

    it('a change is recorded with what changed (first pool: none; an address put back: added again); the newest supersedes one not yet told', async () => {
      const now = await fresh();
      const pending = () => f.store.egressIps.pendingChange();
      await f.store.egressIps.sync([v4('192.0.2.10')], now, NOTICE);
      expect(await pending()).toBeNull();
      await f.store.egressIps.sync([v4('192.0.2.10'), v6('2001:db8::10')], now + 1, NOTICE);
      expect(await pending()).toEqual({ id: expect.any(String), at: now + 1, added: ['2001:db8::10'], retiring: [], retiringAt: null, cursor: null });
      // A short notice, so the next test's fresh list is empty again.
      await f.store.egressIps.sync([v6('2001:db8::10')], now + 2, 10);
      const retiring = await pending();
      // Superseded: the addition, not told yet, is folded into the newest.
      expect(retiring).toEqual({ id: expect.any(String), at: now + 2, added: ['2001:db8::10'], retiring: ['192.0.2.10'], retiringAt: now + 12, cursor: null });
      await f.store.egressIps.sync([v6('2001:db8::10')], now + 3, 10);
      expect((await pending())?.id).toBe(retiring!.id);
      // Rolled back while still listed as retiring: customers told to drop it hear it is back.
      expect(await f.store.egressIps.sync([v4('192.0.2.10'), v6('2001:db8::10')], now + 4, 10)).toEqual({ added: [], restored: ['192.0.2.10'], retiring: [] });
      const back = await pending();
      expect(back).toEqual({ id: expect.any(String), at: now + 4, added: ['2001:db8::10', '192.0.2.10'], retiring: [], retiringAt: null, cursor: null });
      expect(await f.store.egressIps.advanceChange(back!.id, null, null, true, [])).toBe(true);
      expect(await pending()).toBeNull();
    });

    it('the organizations with a fixed_ip endpoint, by id, a page at a time; one with direct endpoints only is not among them', async () => {
      const before = await orgWith(0, 0);
      const a = await orgWith(3, 1);
      await orgWith(0, 2);
      const c = await orgWith(1, 0);
      expect(await f.store.egressIps.fixedIpOrgs(before, 10)).toEqual([a, c]);
      expect(await f.store.egressIps.fixedIpOrgs(before, 1)).toEqual([a]);
      expect(await f.store.egressIps.fixedIpOrgs(a, 1)).toEqual([c]);
      expect(await f.store.egressIps.fixedIpOrgs(c, 5)).toEqual([]);
    });

    it('advancing queues the notices with the cursor move; a worker whose cursor is stale queues nothing', async () => {
      const now = await fresh();
      await f.store.egressIps.sync([v4('192.0.2.20')], now, NOTICE);
      await f.store.egressIps.sync([v4('192.0.2.21')], now + 1, NOTICE);
      const change = (await f.store.egressIps.pendingChange())!;
      const [a, b] = [await orgWith(1, 0), await orgWith(1, 0)];
      expect(await f.store.egressIps.advanceChange(change.id, null, a, false, [notice(a, 1)])).toBe(true);
      expect((await f.store.egressIps.pendingChange())?.cursor).toBe(a);
      // A second worker that read the change before the move: refused, its notice not queued.
      expect(await f.store.egressIps.advanceChange(change.id, null, a, false, [notice(a, 2)])).toBe(false);
      expect(await f.store.egressIps.advanceChange(change.id, a, b, true, [notice(b, 1)])).toBe(true);
      expect(await f.store.egressIps.pendingChange()).toBeNull();
      expect(await f.store.egressIps.advanceChange(change.id, b, b, true, [notice(b, 2)])).toBe(false);
      const claimed = await f.store.alerts.claimNotices(f.clock.now(), f.clock.now() + 60_000, 'egress-contract', 1_000);
      expect(
        claimed
          .filter((n) => n.orgId === a || n.orgId === b)
          .map((n) => n.id)
          .sort(),
      ).toEqual([notice(a, 1).id, notice(b, 1).id].sort());
    });
  });
}
