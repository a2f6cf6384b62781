import { DatabaseSync } from 'node:sqlite';
import { PlanLimitError, type OrgId, type Tenant } from '@wirehook/core';
import { claimRef } from '../ports/delivery-port.ts';
import type { CreatedMessage } from '../ports/message-port.ts';
import { describe, expect, it } from 'vitest';
import { DAY, HOUR, LEASE_MS, MessageFixtures } from '../../test/contract/message-fixtures.ts';
import { CLEAR_LAG_MS } from './usage-tally.ts';
import { messageListQuery } from './message-list.ts';
import { migrate } from './migrations.ts';
import { countStatements } from '../../test/sqlite/statement-counts.ts';
import { tempStores } from '../../test/sqlite/temp-stores.ts';

// What SQLite does beyond the contract with messages: claims at create, pages of due
// deliveries shared between endpoints, usage counters' expiry, the list's index.

/** A tenant with `endpoints` endpoints (over consumers of 20 each, the limit), and one delivery due to each, created at `createdAt`. */
async function busyTenant(m: MessageFixtures, endpoints: number, createdAt: number): Promise<Tenant> {
  const t = await m.f.tenant();
  await fillTenant(m, t, endpoints, createdAt);
  return t;
}

/** Gives tenant `t` `endpoints` endpoints (consumers `customer-0`… of 20 each) and one delivery due to each, created at `createdAt`. */
async function fillTenant(m: MessageFixtures, t: Tenant, endpoints: number, createdAt: number): Promise<void> {
  for (let c = 0; c * 20 < endpoints; c++) {
    const consumer = await m.f.consumer(t, `customer-${c}`);
    for (let i = c * 20; i < Math.min(endpoints, (c + 1) * 20); i++) await m.hook(t, consumer);
    await m.send(t, { createdAt, consumerExternalId: `customer-${c}` });
  }
}

describe('SQLite store', () => {
  const { tempFile, openFile, fixtures } = tempStores();

  it('claims the due deliveries a create writes when asked, up to max, none of a paused endpoint', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const { t, consumer } = await m.scene();
    await m.hook(t, consumer);
    await m.hook(t, consumer, { status: 'paused' });
    const now = Date.now();
    const sent = await m.send(t, { createdAt: now, claim: { max: 10, leaseUntil: now + LEASE_MS } });
    expect(sent.claimed?.map((job) => job.delivery.id)).toHaveLength(2);
    expect(sent.dueDeliveryIds).toEqual([]);
    const capped = await m.send(t, { createdAt: now, claim: { max: 1, leaseUntil: now + LEASE_MS } });
    expect(capped.claimed).toHaveLength(1);
    expect(capped.dueDeliveryIds).toHaveLength(1);
    const none = await m.send(t, { createdAt: now });
    expect(none.claimed).toBeUndefined();
    expect(none.dueDeliveryIds).toHaveLength(2);
  });

  it('a completion queued behind a moment of fan-out messages commits before them: creates are bulky (GroupCommit.run)', async () => {
    // No share: each batch runs one create (its first write) and every light write queued.
    const store = openFile(tempFile(), { bulkyShareMs: 0 });
    const m = new MessageFixtures(fixtures(store));
    const { t, consumer } = await m.scene();
    for (let i = 1; i < 20; i++) await m.hook(t, consumer); // 20 endpoints: a delivery each a message
    const now = Date.now();
    const job = (await m.send(t, { createdAt: now, claim: { max: 1, leaseUntil: now + LEASE_MS } })).claimed![0]!;
    const settled: string[] = [];
    // The store's own calls, both one async step from the write's promise: they settle in the order their writes do.
    const creates = Array.from({ length: 5 }, (_, i) => store.messages.create(t, m.newMessage({ createdAt: now })).then(() => settled.push(`create ${i + 1}`)));
    const completion = store.deliveries.complete(claimRef(job), m.succeeded(job, now)).then(() => settled.push('completion'));
    await Promise.all([...creates, completion]);
    // Not bulky, all five and the completion would settle in one batch, the completion last.
    expect(settled).toEqual(['create 1', 'completion', 'create 2', 'create 3', 'create 4', 'create 5']);
  });

  it('shares a page between backlogged endpoints, and fills it when some have only a few due', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const now = Date.now();
    const backlogOf = async (count: number, createdAt = now) => {
      const { t } = await m.scene();
      for (let i = 0; i < count; i++) m.only(await m.send(t, { createdAt }));
    };
    // Four endpoints with 30 due each: the oldest page of 20 is one endpoint's (over the cap of
    // 10), so the page is shared: 5 of each, not 10 of two and none of the others.
    for (let i = 0; i < 4; i++) await backlogOf(30);
    const shared = await store.deliveries.due(now, 20, 10);
    expect(shared).toHaveLength(20);
    expect(countBy(shared.map((d) => d.endpointId))).toEqual([5, 5, 5, 5]);
    // Two more endpoints with one due each (the oldest): the spread (ceil(20 / 6) = 4 each)
    // leaves the page short, so the endpoints that had more give more, up to the cap.
    await backlogOf(1, now - 1_000);
    await backlogOf(1, now - 1_000);
    const filled = await store.deliveries.due(now, 20, 10);
    expect(filled).toHaveLength(20);
    const counts = countBy(filled.map((d) => d.endpointId));
    expect(counts.filter((n) => n === 1)).toHaveLength(2);
    expect(Math.max(...counts)).toBeLessThanOrEqual(10);
    // A page bigger than all that is due: all of it, capped per endpoint.
    expect(await store.deliveries.due(now, 1_000, 10)).toHaveLength(4 * 10 + 2);
  });

  it('a lone tenant past its share: the wider read for other tenants runs once a second, not at every sweep; a newcomer is found within it', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const { t, consumer } = await m.scene();
    for (let i = 1; i < 6; i++) await m.hook(t, consumer);
    await m.send(t); // 6 endpoints, one due each
    const dueReads = (sql: string) => (sql.includes('INDEXED BY deliveries_due') ? 'reads' : undefined);
    const at = m.f.clock.now();
    const sweep = async (now: number) => {
      const { result, counts } = await countStatements(dueReads, () => store.deliveries.due(now, 4, 1, 2));
      return { listed: result.length, reads: counts.reads ?? 0 };
    };
    // The page (4, all its own) cut to its share of 2: the wider read finds no other tenant.
    expect(await sweep(at)).toEqual({ listed: 2, reads: 2 });
    // Within the second after: the page alone.
    expect(await sweep(at + 999)).toEqual({ listed: 2, reads: 1 });
    // A second on, the wider read again; another tenant's delivery, behind the lone one's, found by it.
    const other = await m.scene();
    await m.send(other.t, { createdAt: at + 500 });
    expect(await sweep(at + 1_000)).toEqual({ listed: 3, reads: 2 });
  });

  it('more of one tenant’s endpoints due than the wider read holds (one each, older): another tenant’s delivery behind them is found', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const at = m.f.clock.now();
    const t = await busyTenant(m, 40, at - 10_000); // 40 endpoints, one due each: more than 8 pages of 4
    const other = await m.scene();
    const behind = m.only(await m.send(other.t, { createdAt: at }));
    const everyEndpoint = (sql: string) => (sql.includes('WITH RECURSIVE eps') ? 'walks' : undefined);
    const sweep = (now = at + 1) => store.deliveries.due(now, 4, 1, 2);
    const { result: listed, counts } = await countStatements(everyEndpoint, () => sweep());
    // Not by the walk of every endpoint (a seek each: 0.6 s a sweep at 10⁵), which a tenant's share had been taken for an endpoint's cut.
    expect(counts.walks ?? 0).toBe(0);
    // The busy tenant's share (2), then the other's, which lies behind all 32 rows of the wider read.
    expect(listed.map((d) => d.tenant.orgId)).toEqual([t.orgId, t.orgId, other.t.orgId]);
    expect(listed[2]!.id).toBe(behind);
    // Nothing changed: within 250 ms, no walk (a sweep at every send's end would walk at each); then the same answer
    // (the walk comes round to it again).
    expect((await sweep(at + 1 + 249)).map((d) => d.tenant.orgId)).toEqual([t.orgId, t.orgId]);
    expect((await sweep(at + 1 + 250)).map((d) => d.id)).toEqual(listed.map((d) => d.id));
  });

  it('the tenants’ walk skips a full tenant’s 300 endpoints in one seek once it meets them (a page of them read, not all)', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const at = m.f.clock.now();
    await busyTenant(m, 300, at - 10_000);
    const other = await m.scene();
    const behind = m.only(await m.send(other.t, { createdAt: at }));
    const walkStatements = (sql: string) => (sql.includes('INDEXED BY endpoints_tenant') ? 'walk' : undefined);
    const { result, counts } = await countStatements(walkStatements, () => store.deliveries.due(at + 1, 4, 1, 2));
    expect(result.map((d) => d.id)).toContain(behind);
    // A page of the busy tenant's endpoints (32: the walk's budget at a limit of 4), then one past all of it to the other's;
    // the room (2) not filled, on past the last endpoint and round once more: 5 statements (read on inside the busy tenant,
    // page after page, it took 31).
    expect(counts.walk).toBe(5);
  });

  it('the tenants’ walk does not pass by what the room cut: tenants found beyond it are listed by the next walk', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const at = m.f.clock.now();
    await busyTenant(m, 40, at - 10_000);
    // Four tenants with a delivery due each, then 60 idle ones (ids in the order made: the walk meets them in it).
    const small: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { t } = await m.scene();
      small.push(m.only(await m.send(t, { createdAt: at })));
    }
    for (let i = 0; i < 60; i++) await m.scene();
    const listedOf = async (now: number) => {
      const listed = (await store.deliveries.due(now, 4, 1, 2)).map((d) => d.id).filter((id) => small.includes(id));
      // Claimed, as the dispatcher would: the next call lists the others.
      for (const id of listed) await m.claim(id, now);
      return listed;
    };
    // Room for 2 beside the busy tenant's share: the first two, then the other two at the next walk.
    expect(await listedOf(at + 1)).toEqual(small.slice(0, 2));
    expect(await listedOf(at + 1 + 250)).toEqual(small.slice(2));
  });

  it('a hidden tenant with a backlog of its own gets its share of a walk, and the tenant behind it the next walk', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const at = m.f.clock.now();
    await busyTenant(m, 40, at - 10_000);
    // B: 10 endpoints due, newer than the busy tenant's; C behind it (ids in the order made).
    const b = await busyTenant(m, 10, at - 5_000);
    const c = await m.scene();
    const behind = m.only(await m.send(c.t, { createdAt: at }));
    const walked = async (now: number) => {
      const listed = (await store.deliveries.due(now, 4, 1, 2)).slice(2);
      for (const d of listed) await m.claim(d.id, now);
      return listed.map((d) => (d.tenant.orgId === b.orgId ? 'B' : d.id === behind ? 'C' : '?'));
    };
    // The room beside the busy tenant's share (2) is B's share: the next walk goes on past B, to C.
    expect(await walked(at + 1)).toEqual(['B', 'B']);
    expect(await walked(at + 1 + 250)).toEqual(['C', 'B']);
  });

  it('a hidden tenant of 300 endpoints with its share (1) listed: the walk goes on past it, and the tenant behind it comes next', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const at = m.f.clock.now();
    await busyTenant(m, 40, at - 10_000);
    const t = await busyTenant(m, 300, at - 5_000);
    const c = await m.scene();
    const behind = m.only(await m.send(c.t, { createdAt: at }));
    const walks: string[][] = [];
    for (let call = 0; call < 15 && !walks.some((w) => w.includes('C')); call++) {
      const now = at + 1 + call * 250;
      // The busy tenant's 1 (its share), then what the walk found.
      const listed = (await store.deliveries.due(now, 4, 1, 1)).slice(1);
      for (const d of listed) await m.claim(d.id, now);
      walks.push(listed.map((d) => (d.tenant.orgId === t.orgId ? 'T' : d.id === behind ? 'C' : '?')));
    }
    expect(walks).toEqual([['T'], ['C', 'T']]);
  });

  it('a hidden tenant whose first endpoints keep getting work: the walk goes on inside it where it left, its later endpoints listed', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const at = m.f.clock.now();
    await busyTenant(m, 40, at - 10_000);
    const t = await busyTenant(m, 300, at - 5_000);
    const seen = new Set<string>();
    for (let call = 0; call < 120; call++) {
      const now = at + 1 + call * 250;
      // Its first consumer's 20 endpoints get a message each walk, newer than its backlog.
      await m.send(t, { createdAt: now - 1, consumerExternalId: 'customer-0' });
      const listed = (await store.deliveries.due(now, 4, 1, 2)).slice(2);
      for (const d of listed) {
        await m.claim(d.id, now);
        if (d.tenant.orgId === t.orgId) seen.add(d.endpointId);
      }
    }
    // 2 a walk (its share) over 120 walks: most of its 300 endpoints, not the same first 30 (walked from its start each time).
    expect(seen.size).toBeGreaterThan(200);
  });

  it('a tenant just before the hidden one fills the room: the hidden tenant’s place inside it is kept for the next walk', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const at = m.f.clock.now();
    await busyTenant(m, 40, at - 10_000);
    // T (300 endpoints) and A (3) with A's id just before T's: A's rows fill the room each walk before T's place is reached.
    const x = await m.f.tenant();
    const y = await m.f.tenant();
    const [a, t] = x.orgId < y.orgId ? [x, y] : [y, x];
    await fillTenant(m, t, 300, at - 5_000);
    await fillTenant(m, a, 3, at - 5_000);
    const seen = new Set<string>();
    let rowsOfT = 0;
    for (let call = 0; call < 120; call++) {
      const now = at + 1 + call * 250;
      await m.send(t, { createdAt: now - 1, consumerExternalId: 'customer-0' });
      await m.send(a, { createdAt: now - 1, consumerExternalId: 'customer-0' });
      const listed = (await store.deliveries.due(now, 4, 1, 2)).slice(2);
      for (const d of listed) {
        await m.claim(d.id, now);
        if (d.tenant.orgId !== t.orgId) continue;
        seen.add(d.endpointId);
        rowsOfT++;
      }
    }
    // Nearly each of T's rows from another endpoint (its place kept), not its first 20 again and again.
    expect(seen.size).toBeGreaterThan(rowsOfT * 0.9);
  });

  it('the tenants’ walk passes over a tenant asked to be skipped, even where it stopped inside it, and lists no delivery twice', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const at = m.f.clock.now();
    const busy = await busyTenant(m, 40, at - 10_000);
    // A tenant with 300 endpoints due (newer than the busy one's), then one with a delivery due behind both.
    const wide = await busyTenant(m, 300, at - 5_000);
    const other = await m.scene();
    const behind = m.only(await m.send(other.t, { createdAt: at }));
    const first = await store.deliveries.due(at + 1, 4, 2, 2);
    expect(first.map((d) => d.tenant.orgId)).toEqual([busy.orgId, busy.orgId, wide.orgId, wide.orgId]);
    // The wide tenant now skipped (its share full): the next walk does not read on inside it.
    const skipped = [{ orgId: wide.orgId, env: 'live' as const }];
    const next = await store.deliveries.due(at + 1 + 250, 4, 2, 2, skipped);
    expect(next.map((d) => d.id)).toEqual([first[0]!.id, first[1]!.id, behind]);
    expect(new Set(next.map((d) => d.id)).size).toBe(next.length);
  });

  it('the tenants’ walk reads at most 8 pages’ worth of tenants and endpoints a call, and goes on where it stopped', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const at = m.f.clock.now();
    await busyTenant(m, 40, at - 10_000);
    // 60 tenants of one idle endpoint each, and one with a delivery due: wherever its id falls, found within the walks.
    for (let i = 0; i < 60; i++) await m.scene();
    const other = await m.scene();
    const behind = m.only(await m.send(other.t, { createdAt: at }));
    const walkStatements = (sql: string) => (sql.includes('INDEXED BY endpoints_tenant') ? 'walk' : undefined);
    const calls: { found: boolean; walk: number }[] = [];
    for (let call = 0; call < 8 && !calls.some((c) => c.found); call++) {
      // A second apart: the lone tenant's page is answered alone within a second of a wider read that found no other.
      const { result, counts } = await countStatements(walkStatements, () => store.deliveries.due(at + 1 + call * 1_000, 4, 1, 2));
      calls.push({ found: result.some((d) => d.id === behind), walk: counts.walk ?? 0 });
    }
    // 62 tenants and 101 endpoints, the busy one's 40 passed over (a page of them read, then a jump past): the others'
    // 61 read at most 32 a call, statements counted in (4 × 8), so found by the second, third or fourth.
    expect(calls.at(-1)?.found).toBe(true);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.length).toBeLessThanOrEqual(5);
    for (const c of calls) expect(c.walk).toBeLessThanOrEqual(32);
  });

  it('forgets usage counters past their expiry', async () => {
    const store = openFile(tempFile());
    const m = new MessageFixtures(fixtures(store));
    const t = await m.f.tenant();
    const createdAt = m.f.clock.now();
    const key = `day:${t.orgId}`;
    await m.send(t, { createdAt, counters: [{ key, limit: 1, increment: true, expiresAt: createdAt + 1 }] });
    expect(await store.messages.counter(key)).toBe(1);
    const later = await m.send(t, {
      createdAt: createdAt + 1,
      counters: [{ key, limit: 1, increment: true, expiresAt: createdAt + 2 }],
    });
    expect(later.counters).toEqual({ [key]: 1 });
    // Expired, it reads as 0 to a send; its row is kept 40 days (a send stamped by a clock that
    // jumped ahead must not clear what the others still count), then cleared by a send.
    expect(CLEAR_LAG_MS).toBe(40 * DAY);
    await m.send(t, { createdAt: createdAt + 2 + CLEAR_LAG_MS - 1 });
    expect(await store.messages.counter(key)).toBe(1);
    await m.send(t, { createdAt: createdAt + 2 + CLEAR_LAG_MS });
    expect(await store.messages.counter(key)).toBe(0);
  });

  describe('usage counters, tallied per group commit (usage-tally.ts)', () => {
    /** No share of bulky writes: the creates sent together run in one batch, however slow the machine. */
    const ONE_BATCH = { bulkyShareMs: Number.POSITIVE_INFINITY };
    /** Runs `sends` together (one group commit), counting the counter statements SQLite runs meanwhile. */
    async function together<T>(sends: () => Promise<T>[]): Promise<{ results: PromiseSettledResult<T>[]; reads: number; writes: number; clears: number }> {
      const kind = (sql: string) => {
        if (sql.startsWith('SELECT') && sql.includes('FROM usage_counters')) return 'reads';
        if (sql.startsWith('UPDATE usage_counters SET value') || sql.startsWith('INSERT INTO usage_counters')) return 'writes';
        return sql.startsWith('DELETE FROM usage_counters') ? 'clears' : undefined;
      };
      const { result, counts } = await countStatements(kind, () => Promise.allSettled(sends()));
      return { results: result, reads: counts.reads ?? 0, writes: counts.writes ?? 0, clears: counts.clears ?? 0 };
    }

    it('at a limit of 3 with one send taken before, five sent in one batch: two taken (2, 3), three refused; one read, one write, one clear', async () => {
      const store = openFile(tempFile(), ONE_BATCH);
      const m = new MessageFixtures(fixtures(store));
      const t = await m.f.tenant();
      const month = { key: `live:${t.orgId}:2026-12`, limit: 3, increment: true, expiresAt: m.f.clock.now() + 31 * DAY };
      await m.send(t, { counters: [month] });
      const { results, reads, writes, clears } = await together(() => Array.from({ length: 5 }, () => m.send(t, { counters: [month] })));
      expect(results.map((r) => (r.status === 'fulfilled' ? r.value.counters[month.key] : 'refused'))).toEqual([2, 3, 'refused', 'refused', 'refused']);
      expect(results.filter((r) => r.status === 'rejected').every((r) => r.reason instanceof PlanLimitError)).toBe(true);
      expect(await store.messages.counter(month.key)).toBe(3);
      // Once a batch: each send had read its counter (5 reads) and each taken one cleared and bumped (2 + 2).
      expect({ reads, writes, clears }).toEqual({ reads: 1, writes: 1, clears: 1 });
    });

    it('a read-only counter and a replay in the batch see what the batch has added before them', async () => {
      const store = openFile(tempFile(), ONE_BATCH);
      const m = new MessageFixtures(fixtures(store));
      const t = await m.f.tenant();
      const month = { key: `live:${t.orgId}:2026-12`, limit: null, increment: true, expiresAt: m.f.clock.now() + 31 * DAY };
      await m.send(t, { idempotencyKey: 'k', counters: [month] });
      const { results } = await together(() => [
        m.send(t, { counters: [month] }),
        m.send(t, { counters: [{ ...month, increment: false }] }),
        m.send(t, { idempotencyKey: 'k', counters: [month] }),
        m.send(t, { counters: [month] }),
      ]);
      expect(results.map((r) => (r.status === 'fulfilled' ? [r.value.created, r.value.counters[month.key]] : r.reason))).toEqual([
        [true, 2],
        [true, 2],
        [false, 2],
        [true, 3],
      ]);
      expect(await store.messages.counter(month.key)).toBe(3);
    });

    it('a key expiring between two sends of one batch: moved on by the first, cleared by the second, as send by send', async () => {
      const path = tempFile();
      const store = openFile(path);
      const m = new MessageFixtures(fixtures(store));
      const t = await m.f.tenant();
      const e = m.f.clock.now() + HOUR;
      const raw = new DatabaseSync(path);
      // Each key expires an hour after the one before, so each batch below clears only its own.
      const [ek, eo] = [e + HOUR, e + 2 * HOUR];
      raw.prepare('INSERT INTO usage_counters (key, value, expires_at) VALUES (?, 999, ?), (?, 999, ?), (?, 5, ?)').run('moved', e, 'kept', ek, 'old', eo);
      raw.close();
      // 'moved': the first send (before e) moves its expiry on; the second (at e) leaves it so.
      const moved = { key: 'moved', limit: 1_000, increment: true, expiresAt: e + DAY };
      const first = await together(() => [m.send(t, { createdAt: e - 1, counters: [moved] }), m.send(t, { createdAt: e })]);
      expect(first.results.map((r) => (r.status === 'fulfilled' ? r.value.counters : r.reason))).toEqual([{ moved: 1_000 }, {}]);
      expect(await store.messages.counter('moved')).toBe(1_000);
      // 'kept': taken to its limit just before it expires; the next send, at its expiry, finds it expired: 1 again.
      const kept = { key: 'kept', limit: 1_000, increment: true, expiresAt: ek };
      const second = await together(() => [
        m.send(t, { createdAt: ek - 1, counters: [kept] }),
        m.send(t, { createdAt: ek, counters: [{ ...kept, expiresAt: ek + DAY }] }),
      ]);
      expect(second.results.map((r) => (r.status === 'fulfilled' ? r.value.counters : 'refused'))).toEqual([{ kept: 1_000 }, { kept: 1 }]);
      expect(await store.messages.counter('kept')).toBe(1);
      // A clock stepping back: 'old' is not cleared by the send after its expiry (40 days on, it
      // would be), so the send stamped before its expiry reads it as it stands then: 5.
      const old = { key: 'old', limit: null, increment: false, expiresAt: eo };
      const third = await together(() => [m.send(t, { createdAt: eo + 1 }), m.send(t, { createdAt: eo - 1, counters: [old] })]);
      expect(third.results.map((r) => (r.status === 'fulfilled' ? r.value.counters : r.reason))).toEqual([{}, { old: 5 }]);
      expect(await store.messages.counter('old')).toBe(5);
      // Sent 40 days after its expiry: cleared, and a send stamped before it (a clock stepping back) reads 0.
      const fourth = await together(() => [m.send(t, { createdAt: eo + CLEAR_LAG_MS }), m.send(t, { createdAt: eo - 1, counters: [old] })]);
      expect(fourth.results.map((r) => (r.status === 'fulfilled' ? r.value.counters : r.reason))).toEqual([{}, { old: 0 }]);
      expect(await store.messages.counter('old')).toBe(0);
    });

    it('a send stamped by a clock that jumped ahead, in one batch with another organization’s: that one’s counter of the period is kept', async () => {
      const store = openFile(tempFile(), ONE_BATCH);
      const m = new MessageFixtures(fixtures(store));
      const a = await m.f.tenant();
      const b = await m.f.tenant();
      const now = m.f.clock.now();
      const monthA = { key: `live:${a.orgId}:this-month`, limit: null, increment: true, expiresAt: now + 31 * DAY };
      await m.send(a, { createdAt: now, counters: [monthA] });
      await m.send(a, { createdAt: now, counters: [monthA] });
      const ahead = now + 60 * DAY;
      const monthB = { key: `live:${b.orgId}:in-two-months`, limit: null, increment: true, expiresAt: ahead + 30 * DAY };
      await together(() => [m.send(a, { createdAt: now, counters: [monthA] }), m.send(b, { createdAt: ahead, counters: [monthB] })]);
      expect(await store.messages.counter(monthA.key)).toBe(3);
    });

    it('a batch whose first send is refused elsewhere (a write rolled back alone) adds nothing for it', async () => {
      const store = openFile(tempFile(), ONE_BATCH);
      const m = new MessageFixtures(fixtures(store));
      const t = await m.f.tenant();
      const month = { key: `live:${t.orgId}:2026-12`, limit: null, increment: true, expiresAt: m.f.clock.now() + 31 * DAY };
      const full = { key: `day:${t.orgId}`, limit: 0, increment: true, expiresAt: m.f.clock.now() + DAY };
      const { results } = await together(() => [m.send(t, { counters: [month, full] }), m.send(t, { counters: [month] })]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
      expect((results[1] as PromiseFulfilledResult<CreatedMessage>).value.counters).toEqual({ [month.key]: 1 });
      expect(await store.messages.counter(month.key)).toBe(1);
      expect(await store.messages.counter(full.key)).toBe(0);
    });
  });

  it('moves a usage counter’s expiry to the one its latest send gives', async () => {
    // An increment writes the expiry only when it changed; a changed one must still land.
    const f = fixtures(openFile(tempFile()));
    const m = new MessageFixtures(f);
    const t = await f.tenant();
    const start = f.clock.now();
    const month = (expiresAt: number) => [{ key: 'month', limit: null, increment: true, expiresAt }];
    await m.send(t, { counters: month(start + HOUR) });
    await m.send(t, { counters: month(start + DAY) });
    f.clock.advance(2 * HOUR);
    expect((await m.send(t, { counters: month(start + DAY) })).counters).toEqual({ month: 3 });
    f.clock.advance(DAY);
    expect((await m.send(t, { counters: month(f.clock.now() + DAY) })).counters).toEqual({ month: 1 });
  });

  it('reads every listed status through the status index', () => {
    // Without it a list of one status walks the tenant's whole history (query-plans.test.ts
    // checks every statement for whole-table scans; this one is bounded by the tenant).
    const db = new DatabaseSync(':memory:');
    try {
      migrate(db);
      const plan = (sql: string) =>
        db
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all()
          .map((row) => String(row['detail']))
          .join('\n');
      const t: Tenant = { orgId: 'org_plan' as OrgId, env: 'live' };
      for (const status of ['pending', 'retrying', 'failed', 'success'] as const) {
        expect(plan(messageListQuery(t, { status, limit: 20 }).sql)).toContain('SEARCH m USING INDEX messages_tenant_status');
      }
    } finally {
      db.close();
    }
  });
});

/** How many times each value occurs, in order of first occurrence. */
function countBy(values: readonly string[]): number[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.values()];
}
