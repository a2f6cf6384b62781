// The due queue's notes without a server: a stand-in `dueEndpoints` whose bulk writes fail while
// told to, and otherwise keep each entry's earliest bound.
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { type DueNote, noteDue } from './due-queue.ts';

function dueQueue() {
  const bounds = new Map<string, number>();
  const state = { failing: false, started: 0, release: null as (() => void) | null };
  const conn = {
    dueEndpoints: {
      bulkWrite: async (ops: { updateOne: { filter: { _id: string }; update: { $min: { dueAt: number } } } }[]) => {
        state.started++;
        if (state.failing) {
          // Held until released: calls that fail side by side.
          await new Promise<void>((resolve) => (state.release = resolve));
          throw new Error('the database is failing over');
        }
        for (const { updateOne } of ops) bounds.set(updateOne.filter._id, Math.min(bounds.get(updateOne.filter._id) ?? Infinity, updateOne.update.$min.dueAt));
        return {};
      },
    },
  } as unknown as MongoConnection;
  return { conn, bounds, state };
}

const note = (endpointId: string, dueAt: number): DueNote => ({ orgId: 'org_1', env: 'live', endpointId, month: '202612', dueAt });

describe('noteDue', () => {
  it('keeps the notes of calls that failed side by side, each entry’s earliest, and writes them all with the next call', async () => {
    const { conn, bounds, state } = dueQueue();
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
  });
});
