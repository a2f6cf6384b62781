// SQLite removes done notices and old notice tries itself (MongoDB's TTL indexes do it there):
// a batch at a time, done notices only, tries by their time, none newer than the cutoff.
import { randomUUID } from 'node:crypto';
import type { AlertTargetId, OrgId } from '@wirehook/core';
import { expect, it } from 'vitest';
import type { NoticeDelivery } from '../ports/alert-settings-port.ts';
import { openSqliteStore } from './open-sqlite-store.ts';

const DAY = 24 * 60 * 60_000;
const T0 = Date.UTC(2025, 0, 1);
const store = openSqliteStore({ path: ':memory:' });

const org = 'org_prune' as OrgId;
const target = 'atg_prune' as AlertTargetId;
async function notice(createdAt: number, done: boolean): Promise<string> {
  const n: NoticeDelivery = { id: `ntc_${randomUUID()}`, orgId: org, targetId: target, type: 'alert.test', body: '{}', createdAt };
  await store.alerts.queueNotice(n);
  const [claimed] = (await store.alerts.claimNotices(createdAt, createdAt + 60_000, randomUUID(), 100)).filter((c) => c.id === n.id);
  await store.alerts.recordNoticeAttempt(
    n.id,
    claimed!.claim,
    { at: createdAt, responseStatus: done ? 200 : null, error: null, durationMs: 1 },
    done,
    done ? null : T0 + 100 * DAY,
  );
  return n.id;
}

it('removes done notices and tries made before the cutoff, a batch at a time; keeps newer ones and notices still to be tried', async () => {
  for (let i = 0; i < 3; i++) await notice(T0 + i, true); // old, done
  await notice(T0 + 10, false); // old, still retrying: kept (its try goes)
  await notice(T0 + 40 * DAY, true); // newer than the cutoff
  const cutoff = T0 + 30 * DAY;
  expect(await store.alerts.noticeAttempts(org, target, 100)).toHaveLength(5);
  expect(await store.alerts.pruneNotices(cutoff, cutoff, 2)).toBe(4); // 2 notices and 2 tries
  expect(await store.alerts.pruneNotices(cutoff, cutoff, 2)).toBe(3); // 1 notice and 2 tries
  expect(await store.alerts.pruneNotices(cutoff, cutoff, 2)).toBe(0);
  expect((await store.alerts.noticeAttempts(org, target, 100)).map((a) => a.at)).toEqual([T0 + 40 * DAY]);
  // The notice still to be tried is kept: it is claimed when due.
  expect((await store.alerts.claimNotices(T0 + 100 * DAY, T0 + 100 * DAY + 60_000, 'later', 100)).map((c) => c.createdAt)).toEqual([T0 + 10]);
});
