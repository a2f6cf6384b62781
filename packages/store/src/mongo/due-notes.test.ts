// The due queue's notes without a server: stand-in `dueEndpoints` and `dueTenants` whose bulk
// writes fail while told to, and otherwise keep each entry's (and tenant's) earliest bound and say
// how many they lowered or made, as the server's BulkWriteResult does.
import { createRequire } from 'node:module';
import { MongoBulkWriteError, MongoNetworkError } from 'mongodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { MongoDeliveryRepo } from './delivery-repo.ts';
import { type DueNote, noteDue, stopTenantWriter, tenantsLowered } from './due-queue.ts';
import { byNextTurn } from '../../test/next-turn.ts';

type MinOp = { updateOne: { filter: { _id: string }; update: { $min: { dueAt: number } } } };

// What the driver (7.x) throws from a bulk write: its own classes (WriteError and WriteConcernError are not exported).
const bulk = createRequire(import.meta.url)('mongodb/lib/bulk/common.js') as Record<string, new (...args: unknown[]) => object>;
const noConcernError = { getWriteConcernError: () => undefined };
/** A bulk write that failed as a whole: a lost connection (the driver wraps it, no writeErrors). */
const lostConnection = () => new MongoBulkWriteError(new MongoNetworkError('connection 4 to db-0:27017 closed') as never, noConcernError as never);
/** The server refused these operations one by one; the others applied. */
const refusedOps = (ops: MinOp[], indexes: number[]) =>
  new MongoBulkWriteError(
    {
      message: 'write errors',
      code: 2,
      writeErrors: indexes.map((index) => new bulk['WriteError']!({ index, code: 2, errmsg: 'refused', op: { q: ops[index]!.updateOne.filter } })),
    } as never,
    noConcernError as never,
  );
/** Applied, but the write concern was not met in time (maybe rolled back) — with one operation refused too, or not. */
const concernNotMet = (ops: MinOp[], refusedToo: boolean) => {
  const wce = new bulk['WriteConcernError']!({ code: 64, errmsg: 'waiting for replication timed out' });
  if (!refusedToo) return new MongoBulkWriteError(wce as never, { getWriteConcernError: () => wce } as never);
  const refused = new bulk['WriteError']!({ index: 0, code: 2, errmsg: 'refused', op: { q: ops[0]!.updateOne.filter } });
  return new MongoBulkWriteError({ message: 'write errors', code: 2, writeErrors: [refused] } as never, { getWriteConcernError: () => wce } as never);
};

/** The stand-ins made, whose writers' own tries end with their test. */
const made: MongoConnection[] = [];

function dueQueue() {
  const bounds = new Map<string, number>();
  const tenants = new Map<string, number>();
  const state = {
    failing: false,
    tenantsFailing: false,
    /** The next tenants' writes to fail (after their gate), one each. */
    tenantFailures: 0,
    /** Operations (by index) the next tenants' write refuses, applying the others. */
    refuse: [] as number[],
    /** The next tenants' write applies (all but its first operation, 'and refused'), then fails its write concern. */
    concernNotMet: null as null | 'applied' | 'and refused',
    started: 0,
    tenantWrites: 0,
    release: null as (() => void) | null,
    /** While set, a tenants' write waits for it (then goes on). */
    tenantGate: null as Promise<void> | null,
    /** Each tenants' write's $min by tenant, in the order sent. */
    tenantOps: [] as Record<string, number>[],
  };
  const lower = (into: Map<string, number>, ops: MinOp[]) => {
    let modifiedCount = 0;
    let upsertedCount = 0;
    for (const { updateOne } of ops) {
      const seen = into.get(updateOne.filter._id);
      if (seen === undefined) upsertedCount++;
      else if (updateOne.update.$min.dueAt < seen) modifiedCount++;
      into.set(updateOne.filter._id, Math.min(seen ?? Infinity, updateOne.update.$min.dueAt));
    }
    return { modifiedCount, upsertedCount };
  };
  const conn = {
    dueEndpoints: {
      bulkWrite: async (ops: MinOp[]) => {
        state.started++;
        if (state.failing) {
          // Held until released: calls that fail side by side.
          await new Promise<void>((resolve) => (state.release = resolve));
          throw new Error('the database is failing over');
        }
        return lower(bounds, ops);
      },
    },
    dueTenants: {
      bulkWrite: async (ops: MinOp[]) => {
        state.tenantWrites++;
        state.tenantOps.push(Object.fromEntries(ops.map((o) => [o.updateOne.filter._id, o.updateOne.update.$min.dueAt])));
        if (state.tenantGate !== null) await state.tenantGate;
        if (state.tenantFailures > 0) {
          state.tenantFailures--;
          throw lostConnection();
        }
        if (state.tenantsFailing) throw lostConnection();
        if (state.concernNotMet !== null) {
          const refusedToo = state.concernNotMet === 'and refused';
          state.concernNotMet = null;
          lower(tenants, refusedToo ? ops.slice(1) : ops);
          throw concernNotMet(ops, refusedToo);
        }
        if (state.refuse.length > 0) {
          const refused = state.refuse.splice(0);
          lower(
            tenants,
            ops.filter((_, i) => !refused.includes(i)),
          );
          throw refusedOps(ops, refused);
        }
        return lower(tenants, ops);
      },
    },
  } as unknown as MongoConnection;
  made.push(conn);
  return { conn, bounds, tenants, state };
}

const note = (endpointId: string, dueAt: number, orgId = 'org_1'): DueNote => ({ orgId, env: 'live', endpointId, month: '202612', dueAt });

describe('noteDue', () => {
  it('keeps the notes of calls that failed side by side, each entry’s earliest, and writes them all with the next call', async () => {
    const { conn, bounds, tenants, state } = dueQueue();
    state.failing = true;
    const releases: (() => void)[] = [];
    const first = noteDue(conn, [note('ep_a', 5)]).catch(() => 'failed');
    releases.push(state.release!);
    const second = noteDue(conn, [note('ep_b', 7), note('ep_a', 9)]).catch(() => 'failed');
    releases.push(state.release!);
    for (const release of releases) release();
    expect(await Promise.all([first, second])).toEqual(['failed', 'failed']);
    state.failing = false;
    await noteDue(conn, [note('ep_c', 1)]);
    expect(Object.fromEntries(bounds)).toEqual({ '202612:ep_a': 5, '202612:ep_b': 7, '202612:ep_c': 1 });
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 1 });
  });

  it('lowers each tenant’s bound to its earliest note after its entries, and writes no tenant when no entry was lowered or made', async () => {
    const { conn, tenants, state } = dueQueue();
    await noteDue(conn, [note('ep_a', 50), note('ep_b', 40), note('ep_c', 60, 'org_2')]);
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 40, 'org_2/live': 60 });
    expect(state.tenantWrites).toBe(1);
    // A backlog: each entry's bound is already lower than the new deliveries' — the tenants are not written at all.
    await noteDue(conn, [note('ep_a', 70), note('ep_c', 61, 'org_2')]);
    expect(state.tenantWrites).toBe(1);
    // One entry lowered: its tenant's bound follows (a $min: org_1's stays 40).
    await noteDue(conn, [note('ep_c', 55, 'org_2'), note('ep_a', 45)]);
    expect(state.tenantWrites).toBe(2);
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 40, 'org_2/live': 55 });
  });

  it('a call whose tenants’ write failed after its entries’ writes the tenants with the next call, though its entries then lower nothing', async () => {
    const { conn, bounds, tenants, state } = dueQueue();
    state.tenantsFailing = true;
    await expect(noteDue(conn, [note('ep_a', 5)])).rejects.toThrow('closed');
    expect(bounds.get('202612:ep_a')).toBe(5);
    expect(tenants.size).toBe(0);
    state.tenantsFailing = false;
    await noteDue(conn, [note('ep_a', 9)]);
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 5 });
  });
});

/** A gate: `open` lets what waits on `shut` go on. */
function gate(): { shut: Promise<void>; open: () => void } {
  let open = () => {};
  const shut = new Promise<void>((resolve) => (open = resolve));
  return { shut, open };
}

describe('noteDue with tenantsSoon (the tenant writer)', () => {
  it('answers once the entries are written; the tenants follow, and tenantsLowered settles when they are', async () => {
    const { conn, bounds, tenants, state } = dueQueue();
    const held = gate();
    state.tenantGate = held.shut;
    const noted = noteDue(conn, [note('ep_a', 5), note('ep_b', 3, 'org_2')], { tenantsSoon: true }).then(() => 'answered');
    // Answered with the tenants' write sent and not yet answered (awaited, this call would still be waiting).
    expect(await byNextTurn(noted)).toBe('answered');
    expect(Object.fromEntries(bounds)).toEqual({ '202612:ep_a': 5, '202612:ep_b': 3 });
    expect(state.tenantOps).toEqual([{ 'org_1/live': 5, 'org_2/live': 3 }]);
    const waiting = tenantsLowered(conn).then(() => 'lowered' as const);
    expect(await byNextTurn(waiting)).toBe('waiting');
    held.open();
    await waiting;
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 5, 'org_2/live': 3 });
  });

  it('never sends a tenant before its entries are written', async () => {
    const { conn, state } = dueQueue();
    state.failing = true;
    const noted = noteDue(conn, [note('ep_a', 5)], { tenantsSoon: true }).catch(() => 'failed');
    await new Promise(setImmediate);
    expect(state.tenantOps).toEqual([]);
    state.release!();
    expect(await noted).toBe('failed');
    await tenantsLowered(conn);
    expect(state.tenantOps).toEqual([]);
  });

  it('merges what is handed over during a write into one next write (each tenant’s earliest), never into the write in flight', async () => {
    const { conn, tenants, state } = dueQueue();
    const held = gate();
    state.tenantGate = held.shut;
    await noteDue(conn, [note('ep_a', 50)], { tenantsSoon: true });
    await noteDue(conn, [note('ep_b', 40)], { tenantsSoon: true });
    await noteDue(conn, [note('ep_c', 45), note('ep_d', 60, 'org_2')], { tenantsSoon: true });
    // The later two went nowhere yet: one write in flight at a time.
    expect(state.tenantOps).toEqual([{ 'org_1/live': 50 }]);
    state.tenantGate = null;
    held.open();
    await tenantsLowered(conn);
    expect(state.tenantOps).toEqual([{ 'org_1/live': 50 }, { 'org_1/live': 40, 'org_2/live': 60 }]);
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 40, 'org_2/live': 60 });
  });

  it('keeps the tenants of a failed write, and writes them with the next hand-over or wait (no error for the send)', async () => {
    const { conn, tenants, state } = dueQueue();
    state.tenantsFailing = true;
    await noteDue(conn, [note('ep_a', 5)], { tenantsSoon: true });
    await tenantsLowered(conn);
    expect(state.tenantWrites).toBe(1);
    expect(tenants.size).toBe(0);
    state.tenantsFailing = false;
    // A wait (a sweep's) writes what a failure left: one more write, not a loop against the outage.
    await tenantsLowered(conn);
    expect(state.tenantWrites).toBe(2);
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 5 });
    // And a hand-over with one kept: the kept one goes as the call starts, its own after it (never before its entry).
    state.tenantsFailing = true;
    await noteDue(conn, [note('ep_b', 4)], { tenantsSoon: true });
    await tenantsLowered(conn);
    state.tenantsFailing = false;
    await noteDue(conn, [note('ep_c', 9, 'org_2')], { tenantsSoon: true });
    await tenantsLowered(conn);
    expect(state.tenantOps.slice(-2)).toEqual([{ 'org_1/live': 4 }, { 'org_2/live': 9 }]);
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 4, 'org_2/live': 9 });
  });

  it('a stop (the repo’s settle, before the client closes) waits for the tenants still being written', async () => {
    const { conn, tenants, state } = dueQueue();
    const held = gate();
    state.tenantGate = held.shut;
    await noteDue(conn, [note('ep_a', 5)], { tenantsSoon: true });
    const settling = new MongoDeliveryRepo(conn).settle().then(() => 'settled' as const);
    expect(await byNextTurn(settling)).toBe('waiting');
    held.open();
    await settling;
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 5 });
  });

  it('a wait for a batch queued behind a write that fails ends: that batch, with the failed one’s tenants, is written next (helper 262)', async () => {
    // The writer's own retry (a timer) must not be what ends the wait.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { conn, tenants, state } = dueQueue();
    const held = gate();
    state.tenantGate = held.shut;
    state.tenantFailures = 1;
    await noteDue(conn, [note('ep_a', 5)], { tenantsSoon: true });
    await noteDue(conn, [note('ep_b', 4, 'org_2')], { tenantsSoon: true });
    // A sweep waits for the queued batch while the first write is in flight; then that write fails.
    const waiting = tenantsLowered(conn).then(() => 'done' as const);
    held.open();
    expect(await byNextTurn(waiting)).toBe('done');
    expect(state.tenantOps).toEqual([{ 'org_1/live': 5 }, { 'org_1/live': 5, 'org_2/live': 4 }]);
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 5, 'org_2/live': 4 });
  });

  it('tenants a failed write kept are written with the next noteDue of any kind, one that lowers no entry included', async () => {
    const { conn, tenants, state } = dueQueue();
    state.tenantFailures = 1;
    await noteDue(conn, [note('ep_a', 5)], { tenantsSoon: true });
    await tenantsLowered(conn);
    expect(state.tenantWrites).toBe(1);
    // A later send to the same endpoint lowers nothing (its entry is at 5): its call writes the kept tenant all the same.
    await noteDue(conn, [note('ep_a', 9)], { tenantsSoon: true });
    expect(state.tenantWrites).toBe(2);
    await tenantsLowered(conn);
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 5 });
  });

  it('tries what a failure kept again on its own, 1,000 ms later, doubling while it fails, until the store stops it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { conn, tenants, state } = dueQueue();
    state.tenantFailures = 2;
    await noteDue(conn, [note('ep_a', 5)], { tenantsSoon: true });
    await tenantsLowered(conn);
    expect(state.tenantWrites).toBe(1);
    // Nothing else comes (an intake that receives no more sends): the writer's own try, 1,000 ms on.
    await vi.advanceTimersByTimeAsync(999);
    expect(state.tenantWrites).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(state.tenantWrites).toBe(2);
    // That one failed too: the next 2,000 ms on.
    await vi.advanceTimersByTimeAsync(1_999);
    expect(state.tenantWrites).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(state.tenantWrites).toBe(3);
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 5 });
    // Written: the next failure's try is 1,000 ms on again (not 4,000).
    state.tenantFailures = 1;
    await noteDue(conn, [note('ep_c', 3)], { tenantsSoon: true });
    await tenantsLowered(conn);
    expect(state.tenantWrites).toBe(4);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(state.tenantWrites).toBe(5);
    // While they fail the tries double to 30,000 ms, and stay there: 1, 2, 4, 8, 16, 30, 30 s.
    state.tenantFailures = 8;
    await noteDue(conn, [note('ep_d', 2)], { tenantsSoon: true });
    await tenantsLowered(conn);
    const at: number[] = [];
    for (let ms = 0; ms < 91_000 && state.tenantFailures > 0; ms += 1_000) {
      const before = state.tenantWrites;
      await vi.advanceTimersByTimeAsync(1_000);
      if (state.tenantWrites > before) at.push(ms + 1_000);
    }
    expect(at).toEqual([1_000, 3_000, 7_000, 15_000, 31_000, 61_000, 91_000]);
    state.tenantFailures = 0;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(tenants.get('org_1/live')).toBe(2);
    const writes = state.tenantWrites;
    // Stopped (the store's close): no more tries of its own.
    state.tenantsFailing = true;
    await noteDue(conn, [note('ep_b', 4, 'org_2')], { tenantsSoon: true });
    await tenantsLowered(conn);
    stopTenantWriter(conn);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(state.tenantWrites).toBe(writes + 1);
  });

  it('a sweep behind a write stalled 1,000 ms sends its tenants again beside it, once, and waits only for that; a stop waits for all', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { conn, tenants, state } = dueQueue();
    const held = gate();
    state.tenantGate = held.shut;
    await noteDue(conn, [note('ep_a', 5)], { tenantsSoon: true });
    const sweep = () => tenantsLowered(conn, { stalledAfterMs: 1_000 }).then(() => 'done' as const);
    expect(await byNextTurn(sweep())).toBe('waiting');
    vi.advanceTimersByTime(1_000);
    // Stalled: its tenant goes again beside it (on a socket that answers), and the sweep waits for that alone.
    state.tenantGate = null;
    expect(await byNextTurn(sweep())).toBe('done');
    expect(state.tenantOps).toEqual([{ 'org_1/live': 5 }, { 'org_1/live': 5 }]);
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 5 });
    // Carried once: the next sweep sends nothing more and goes on at once.
    expect(await byNextTurn(sweep())).toBe('done');
    expect(state.tenantWrites).toBe(2);
    // A stop waits for the stalled one too.
    expect(await byNextTurn(tenantsLowered(conn).then(() => 'done' as const))).toBe('waiting');
    held.open();
    await tenantsLowered(conn);
  });

  it('keeps at most 10,000 tenants waiting, and says so once', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const { conn, state } = dueQueue();
    const held = gate();
    state.tenantGate = held.shut;
    await noteDue(conn, [note('ep_0', 1)], { tenantsSoon: true });
    const many = Array.from({ length: 10_002 }, (_, i) => note(`ep_${i + 1}`, 1, `org_${i + 1}`));
    await noteDue(conn, many, { tenantsSoon: true });
    state.tenantGate = null;
    held.open();
    await tenantsLowered(conn);
    expect(Object.keys(state.tenantOps[1]!)).toHaveLength(10_000);
    const capped = () => warn.mock.calls.filter(([m]) => String(m).includes('the healer lowers the rest')).length;
    expect(capped()).toBe(1);
    // Written since: the next time the cap is met, told again.
    const again = gate();
    state.tenantGate = again.shut;
    await noteDue(conn, [note('ep_x', 1, 'org_x')], { tenantsSoon: true });
    await noteDue(
      conn,
      many.map((n) => ({ ...n, endpointId: `${n.endpointId}_2`, dueAt: 0 })),
      { tenantsSoon: true },
    );
    state.tenantGate = null;
    again.open();
    await tenantsLowered(conn);
    expect(capped()).toBe(2);
  });

  it('tells a streak of failed writes once', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const { conn, state } = dueQueue();
    state.tenantFailures = 2;
    await noteDue(conn, [note('ep_a', 5)], { tenantsSoon: true });
    await tenantsLowered(conn);
    await tenantsLowered(conn);
    expect(state.tenantWrites).toBe(2);
    expect(warn.mock.calls.filter(([m]) => String(m).includes('lowering due tenants'))).toHaveLength(1);
    // Written at last, then failing again: a new streak, told again.
    await tenantsLowered(conn);
    state.tenantFailures = 1;
    await noteDue(conn, [note('ep_b', 4)], { tenantsSoon: true });
    await tenantsLowered(conn);
    expect(warn.mock.calls.filter(([m]) => String(m).includes('lowering due tenants'))).toHaveLength(2);
  });
});

describe('the tenant writer against stalls and partial failures', () => {
  it('a write in flight 1,000 ms or more does not hold the next: it goes beside it, up to 4 at once', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { conn, tenants, state } = dueQueue();
    const hung = gate();
    state.tenantGate = hung.shut;
    // A half-open socket: the first write never answers (until the end); the next ones do.
    await noteDue(conn, [note('ep_a', 5)], { tenantsSoon: true });
    state.tenantGate = null;
    await noteDue(conn, [note('ep_b', 4, 'org_2')], { tenantsSoon: true });
    vi.advanceTimersByTime(999);
    await noteDue(conn, [note('ep_c', 3, 'org_3')], { tenantsSoon: true });
    expect(state.tenantWrites).toBe(1);
    vi.advanceTimersByTime(1);
    await noteDue(conn, [note('ep_d', 2, 'org_4')], { tenantsSoon: true });
    // A sweep does not wait for the stalled write (a stop would).
    await tenantsLowered(conn, { stalledAfterMs: 1_000 });
    // Beside the stalled one: what waited behind it with the stalled write's own tenant again, then what came after.
    expect(state.tenantOps.slice(1)).toEqual([{ 'org_1/live': 5, 'org_2/live': 4, 'org_3/live': 3 }, { 'org_4/live': 2 }]);
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 5, 'org_2/live': 4, 'org_3/live': 3, 'org_4/live': 2 });
    // Four in flight at most: three more that hang, then the next waits for one of them to end.
    state.tenantGate = hung.shut;
    const writes: number[] = [];
    for (const org of ['org_5', 'org_6', 'org_7', 'org_8']) {
      await noteDue(conn, [note(`ep_${org}`, 1, org)], { tenantsSoon: true });
      writes.push(state.tenantWrites);
      vi.advanceTimersByTime(1_000);
    }
    expect(writes).toEqual([4, 5, 6, 6]);
    state.tenantGate = null;
    hung.open();
    await tenantsLowered(conn);
    await tenantsLowered(conn);
    expect(state.tenantWrites).toBe(7);
    expect(Object.fromEntries(tenants)).toMatchObject({ 'org_1/live': 5, 'org_5/live': 1, 'org_8/live': 1 });
  });

  it('of a bulk write the server refused in part, keeps only the refused tenants; of one that failed whole, all', async () => {
    const { conn, state } = dueQueue();
    const three = [note('ep_a', 5), note('ep_b', 4, 'org_2'), note('ep_c', 3, 'org_3')];
    state.refuse = [1];
    await noteDue(conn, three, { tenantsSoon: true });
    await tenantsLowered(conn);
    await tenantsLowered(conn);
    expect(state.tenantOps).toEqual([{ 'org_1/live': 5, 'org_2/live': 4, 'org_3/live': 3 }, { 'org_2/live': 4 }]);
    // A lost connection (no writeErrors) and a write concern not met (applied, maybe rolled back; with an operation
    // refused too, or not): every tenant again.
    const failures = [() => (state.tenantFailures = 1), () => (state.concernNotMet = 'applied'), () => (state.concernNotMet = 'and refused')];
    for (const fail of failures) {
      state.tenantOps.length = 0;
      fail();
      await noteDue(
        conn,
        three.map((n) => ({ ...n, endpointId: `${n.endpointId}_${Math.random()}`, dueAt: n.dueAt - 1 })),
        { tenantsSoon: true },
      );
      await tenantsLowered(conn);
      await tenantsLowered(conn);
      expect(state.tenantOps).toEqual([
        { 'org_1/live': expect.any(Number), 'org_2/live': expect.any(Number), 'org_3/live': expect.any(Number) },
        { 'org_1/live': expect.any(Number), 'org_2/live': expect.any(Number), 'org_3/live': expect.any(Number) },
      ]);
    }
  });

  it('a stop waits for every write in flight, an older one still going included', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { conn, tenants, state } = dueQueue();
    const older = gate();
    state.tenantGate = older.shut;
    await noteDue(conn, [note('ep_a', 5)], { tenantsSoon: true });
    vi.advanceTimersByTime(1_000);
    const newer = gate();
    state.tenantGate = newer.shut;
    await noteDue(conn, [note('ep_b', 4, 'org_2')], { tenantsSoon: true });
    expect(state.tenantWrites).toBe(2);
    const stopping = new MongoDeliveryRepo(conn).settle().then(() => 'stopped' as const);
    newer.open();
    expect(await byNextTurn(stopping)).toBe('waiting');
    older.open();
    await stopping;
    expect(Object.fromEntries(tenants)).toEqual({ 'org_1/live': 5, 'org_2/live': 4 });
  });

  it('a store stopped before it ever lowered a tenant makes no writer that tries on its own', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { conn, state } = dueQueue();
    await new MongoDeliveryRepo(conn).settle();
    // A completion committed between the settle and the client's close.
    state.tenantsFailing = true;
    await noteDue(conn, [note('ep_a', 5)], { tenantsSoon: true });
    await tenantsLowered(conn);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(state.tenantWrites).toBe(1);
  });
});

// The stand-ins' failures are warned of (process.emitWarning): kept out of the suite's output, counted where a test asks.
beforeEach(() => {
  vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
});

afterEach(() => {
  for (const conn of made.splice(0)) stopTenantWriter(conn);
  vi.useRealTimers();
  vi.restoreAllMocks();
});
