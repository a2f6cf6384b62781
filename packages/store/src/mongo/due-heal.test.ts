// The due queue's healing beside the sweep, without a server: the healer and the sweep's read are
// stood in for, so what is tested is when `due` starts a healing and that it never waits for one.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { withWarnings } from '../../test/warnings.ts';

const healing = vi.hoisted(() => ({
  calls: [] as { now: number; cursor: string }[],
  /** Each healing's end, in the order they started; `end` the latest's. */
  ends: [] as ((cursor: string) => void)[],
  /** Where each walk of the tenants' bounds began. */
  tenantCursors: [] as string[],
  end: (_cursor: string) => {},
  fail: (_err: Error) => {},
  /** The walks' positions every dispatcher shares (heal-cursors.ts, stood in for: its own test holds its compare-and-set to the server's). */
  shared: new Map<string, string>(),
}));

vi.mock('./heal-cursors.ts', () => ({
  readHealCursors: vi.fn(async () => {
    if (healing.shared.has('unreadable')) throw new Error('not primary');
    return { due: healing.shared.get('due') ?? '', tenants: healing.shared.get('tenants') ?? '' };
  }),
  moveHealCursor: vi.fn(async (_conn: unknown, walk: string, from: string, to: string) => {
    if ((healing.shared.get(walk) ?? '') !== from) return false;
    healing.shared.set(walk, to);
    return true;
  }),
}));

vi.mock('./delivery-claim.ts', () => ({
  claimDelivery: vi.fn(),
  dueDeliveries: vi.fn(async () => [{ id: 'dlv_1', endpointId: 'ep_1', tenant: { orgId: 'org_1', env: 'live' } }]),
  healTenantBounds: vi.fn(async (_conn: unknown, after: string) => (healing.tenantCursors.push(after), `${after}+`)),
  healDueQueue: vi.fn(
    (_conn: unknown, now: number, cursor: string) =>
      new Promise<string>((resolve, reject) => {
        healing.calls.push({ now, cursor });
        healing.ends.push(resolve);
        healing.end = resolve;
        healing.fail = reject;
      }),
  ),
}));

const { MongoDeliveryRepo } = await import('./delivery-repo.ts');
const { STRANDED_PEEK_INTERVAL_MS } = await import('./stranded.ts');

const turn = () => new Promise((resolve) => setImmediate(resolve));

beforeEach(() => {
  healing.calls.length = 0;
  healing.ends.length = 0;
  healing.tenantCursors.length = 0;
  healing.shared.clear();
});
afterEach(() => vi.useRealTimers());

describe('the due queue healed beside the sweep (MongoDB)', () => {
  it('answers due while a healing is going, starts the next 5,000 ms after, and goes on at its cursor', async () => {
    expect(STRANDED_PEEK_INTERVAL_MS).toBe(5_000);
    const repo = new MongoDeliveryRepo({} as MongoConnection);
    // The healing never ends on its own: `due` must answer anyway.
    expect(await repo.due(1_000, 10, 5)).toEqual([{ id: 'dlv_1', endpointId: 'ep_1', tenant: { orgId: 'org_1', env: 'live' } }]);
    await turn();
    expect(healing.calls).toEqual([{ now: 1_000, cursor: '' }]);
    // Past the interval, while the first is still going: no second healing.
    await repo.due(7_000, 10, 5);
    await turn();
    expect(healing.calls).toHaveLength(1);
    healing.end('202612:ep_9');
    await turn();
    // 4,999 ms after the first start: none; 5,000 ms: the next, from where the first stopped.
    await repo.due(5_999, 10, 5);
    await turn();
    expect(healing.calls).toHaveLength(1);
    await repo.due(6_000, 10, 5);
    await turn();
    expect(healing.calls).toEqual([
      { now: 1_000, cursor: '' },
      { now: 6_000, cursor: '202612:ep_9' },
    ]);
    healing.end('');
    await repo.settle();
    // After each healing, the walk of the tenants' bounds, going on where the last stopped.
    expect(healing.tenantCursors).toEqual(['', '+']);
  });

  it('tells a failed healing as a warning, keeps its cursor, and settle waits for the healing going', async () => {
    healing.calls.length = 0;
    healing.tenantCursors.length = 0;
    await withWarnings(async (warnings) => {
      const repo = new MongoDeliveryRepo({} as MongoConnection);
      await repo.due(0, 10, 5);
      await turn();
      healing.fail(new Error('not primary'));
      // process warnings are emitted on the next tick.
      await turn();
      await turn();
      expect(warnings).toEqual(['wirehook: healing the due queue: not primary']);
      await repo.due(5_000, 10, 5);
      await turn();
      expect(healing.calls).toEqual([
        { now: 0, cursor: '' },
        { now: 5_000, cursor: '' },
      ]);
      // The walk of the tenants' bounds went on where it stopped though the healing beside it failed.
      expect(healing.tenantCursors).toEqual(['', '+']);
      let settled = false;
      const settling = repo.settle().then(() => (settled = true));
      await turn();
      expect(settled).toBe(false);
      healing.end('202612:ep_2');
      await settling;
      // Settled: no healing starts any more.
      await repo.due(60_000, 10, 5);
      await turn();
      expect(healing.calls).toHaveLength(2);
    });
  });

  it("settle waits at most 5,000 ms for a healing that does not end (the client's close cuts it short)", async () => {
    healing.calls.length = 0;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const repo = new MongoDeliveryRepo({} as MongoConnection);
    await repo.due(0, 10, 5);
    await turn();
    expect(healing.calls).toHaveLength(1);
    let settled = false;
    void repo.settle().then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
    healing.end('');
  });
  it('every dispatcher goes on where the last healing of any of them ended, a restarted one too', async () => {
    const first = new MongoDeliveryRepo({} as MongoConnection);
    await first.due(0, 10, 5);
    await turn();
    healing.end('202612:ep_9');
    await turn();
    // Another replica, or this one restarted: its first healing begins where that one ended, not at the start.
    const second = new MongoDeliveryRepo({} as MongoConnection);
    await second.due(0, 10, 5);
    await turn();
    expect(healing.calls.map((c) => c.cursor)).toEqual(['', '202612:ep_9']);
    expect(healing.tenantCursors).toEqual(['', '+']);
    healing.end('');
    await Promise.all([first.settle(), second.settle()]);
    expect(healing.shared.get('due')).toBe('');
    expect(healing.shared.get('tenants')).toBe('++');
  });

  it('of two healings that read one position, the first to end moves it; the other’s end is dropped', async () => {
    const [a, b] = [new MongoDeliveryRepo({} as MongoConnection), new MongoDeliveryRepo({} as MongoConnection)];
    await a.due(0, 10, 5);
    await b.due(0, 10, 5);
    await turn();
    expect(healing.calls.map((c) => c.cursor)).toEqual(['', '']);
    healing.ends[1]!('202612:ep_b');
    await turn();
    healing.ends[0]!('202612:ep_a');
    await turn();
    expect(healing.shared.get('due')).toBe('202612:ep_b');
    await a.due(5_000, 10, 5);
    await turn();
    expect(healing.calls.at(-1)?.cursor).toBe('202612:ep_b');
    healing.end('');
    await Promise.all([a.settle(), b.settle()]);
  });
  it('a failed read of the shared positions stops neither walk: each goes on where this process last saw it, and is told', async () => {
    await withWarnings(async (warnings) => {
      const repo = new MongoDeliveryRepo({} as MongoConnection);
      await repo.due(0, 10, 5);
      await turn();
      healing.end('202612:ep_4');
      await turn();
      healing.shared.set('unreadable', '');
      await repo.due(5_000, 10, 5);
      await turn();
      expect(healing.calls.map((c) => c.cursor)).toEqual(['', '202612:ep_4']);
      expect(healing.tenantCursors).toEqual(['', '+']);
      healing.end('');
      await turn();
      await turn();
      expect(warnings).toEqual(['wirehook: healing the due queue: not primary']);
      await repo.settle();
    });
  });
});
