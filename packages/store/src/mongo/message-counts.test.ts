// A page's counts of deliveries by status (message-repo.ts, deliveryStatuses), without a server: a
// stand-in for one month's messages and deliveries. What is tested: the counts each message keeps
// answer (point reads by _id, no aggregate), and only a message written before it kept them is
// counted from its deliveries.
import { type MessageId, newId, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { MongoMessageRepo } from './message-repo.ts';

const t: Tenant = { orgId: 'org_1' as never, env: 'live' };
const NOW = Date.UTC(2026, 11, 7, 10, 0, 0);
const id = () => newId('message', { now: () => NOW }) as MessageId;

function standIn(messages: { _id: string; counts?: Record<string, number> }[], deliveries: { messageId: string; status: string }[]) {
  const sent = { finds: [] as unknown[], aggregates: [] as unknown[] };
  const bucket = {
    messages: {
      find: (filter: { _id: { $in: string[] } }, options: unknown) => {
        sent.finds.push({ filter, options });
        return { toArray: async () => messages.filter((m) => filter._id.$in.includes(m._id)).map((m) => ({ ...m })) };
      },
    },
    deliveries: {
      aggregate: (pipeline: { $match?: { messageId: { $in: string[] } } }[]) => {
        sent.aggregates.push(pipeline);
        const ids = pipeline[0]?.$match?.messageId.$in ?? [];
        const groups = new Map<string, { _id: { messageId: string; status: string }; n: number }>();
        for (const d of deliveries.filter((x) => ids.includes(x.messageId))) {
          const key = `${d.messageId}/${d.status}`;
          const g = groups.get(key) ?? { _id: { messageId: d.messageId, status: d.status }, n: 0 };
          g.n++;
          groups.set(key, g);
        }
        return { toArray: async () => [...groups.values()] };
      },
    },
  };
  const conn = { idsByBucket: (ids: string[]) => new Map([['202612', [...ids]]]), bucket: () => bucket } as unknown as MongoConnection;
  return { repo: new MongoMessageRepo(conn), sent };
}

describe("a page's counts of deliveries by status (MongoDB, a stand-in)", () => {
  it('answers from the counts each message keeps, by _id within the tenant, leaving out statuses at zero; no aggregate', async () => {
    const [a, b] = [id(), id()];
    const { repo, sent } = standIn(
      [
        { _id: a, counts: { pending: 1, retrying: 0, success: 19, failed: 0 } },
        { _id: b, counts: { pending: 0, retrying: 0, success: 0, failed: 0 } },
      ],
      [],
    );
    expect(await repo.deliveryStatuses(t, [a, b])).toEqual({ [a]: { pending: 1, success: 19 } });
    expect(sent.finds).toEqual([
      { filter: { orgId: 'org_1', env: 'live', _id: { $in: [a, b] } }, options: expect.objectContaining({ projection: { counts: 1 }, hint: { _id: 1 } }) },
    ]);
    expect(sent.aggregates).toEqual([]);
  });

  it('counts from its deliveries only a message written before it kept its counts', async () => {
    const [kept, old] = [id(), id()];
    const { repo, sent } = standIn(
      [{ _id: kept, counts: { pending: 0, retrying: 0, success: 2, failed: 0 } }, { _id: old }],
      [
        { messageId: old, status: 'failed' },
        { messageId: old, status: 'success' },
        { messageId: kept, status: 'success' },
      ],
    );
    expect(await repo.deliveryStatuses(t, [kept, old])).toEqual({ [kept]: { success: 2 }, [old]: { failed: 1, success: 1 } });
    expect(sent.aggregates).toHaveLength(1);
    expect(JSON.stringify(sent.aggregates[0])).toContain(old);
    expect(JSON.stringify(sent.aggregates[0])).not.toContain(kept);
  });
});
