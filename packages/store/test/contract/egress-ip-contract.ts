import { describe, expect, it } from 'vitest';
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
    return now + 2;
  }

  describe('egress IPs', () => {
    it('a first pool is added whole and listed current, IPv4 first, by address; the same pool again changes nothing', async () => {
      const now = await fresh();
      const pool = [v6('2001:db8::7'), v4('203.0.113.9'), v4('203.0.113.10')];
      expect(await f.store.egressIps.sync(pool, now, NOTICE)).toEqual({ added: ['2001:db8::7', '203.0.113.9', '203.0.113.10'], retiring: [] });
      expect(await f.store.egressIps.list(now)).toEqual([
        { ip: '203.0.113.10', family: 4, retiringAt: null },
        { ip: '203.0.113.9', family: 4, retiringAt: null },
        { ip: '2001:db8::7', family: 6, retiringAt: null },
      ]);
      expect(await f.store.egressIps.sync(pool, now + DAY, NOTICE)).toEqual({ added: [], retiring: [] });
    });

    it('an address taken out is listed as retiring until the notice ends, keeps its time, and is dropped after it', async () => {
      const now = await fresh();
      await f.store.egressIps.sync([v4('198.51.100.1'), v4('198.51.100.2')], now, NOTICE);
      expect(await f.store.egressIps.sync([v4('198.51.100.2'), v4('198.51.100.3')], now + 1, NOTICE)).toEqual({
        added: ['198.51.100.3'],
        retiring: ['198.51.100.1'],
      });
      const retiringAt = now + 1 + NOTICE;
      const current = [
        { ip: '198.51.100.2', family: 4, retiringAt: null },
        { ip: '198.51.100.3', family: 4, retiringAt: null },
      ];
      expect(await f.store.egressIps.list(now + 1)).toEqual([...current, { ip: '198.51.100.1', family: 4, retiringAt }]);
      // A restart with the same new pool: the notice keeps running from the first time it was seen.
      expect(await f.store.egressIps.sync([v4('198.51.100.2'), v4('198.51.100.3')], now + DAY, NOTICE)).toEqual({ added: [], retiring: [] });
      expect(await f.store.egressIps.list(retiringAt - 1)).toEqual([...current, { ip: '198.51.100.1', family: 4, retiringAt }]);
      expect(await f.store.egressIps.list(retiringAt)).toEqual(current);
      await f.store.egressIps.sync([v4('198.51.100.2'), v4('198.51.100.3')], retiringAt, NOTICE);
      // Dropped: taken back later, it is new again.
      expect(await f.store.egressIps.sync([v4('198.51.100.1'), v4('198.51.100.2'), v4('198.51.100.3')], retiringAt + 1, NOTICE)).toEqual({
        added: ['198.51.100.1'],
        retiring: [],
      });
    });

    it('an address put back while retiring is current again (not added)', async () => {
      const now = await fresh();
      await f.store.egressIps.sync([v4('192.0.2.1'), v6('2001:db8::1')], now, NOTICE);
      await f.store.egressIps.sync([v4('192.0.2.1')], now + 1, NOTICE);
      expect((await f.store.egressIps.list(now + 1)).at(-1)).toEqual({ ip: '2001:db8::1', family: 6, retiringAt: now + 1 + NOTICE });
      expect(await f.store.egressIps.sync([v4('192.0.2.1'), v6('2001:db8::1')], now + 2, NOTICE)).toEqual({ added: [], retiring: [] });
      expect(await f.store.egressIps.list(now + 2)).toEqual([
        { ip: '192.0.2.1', family: 4, retiringAt: null },
        { ip: '2001:db8::1', family: 6, retiringAt: null },
      ]);
    });
  });
}
