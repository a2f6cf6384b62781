// A notice's try recorded on MongoDB, without a server: a stand-in connection that logs each call.
import { describe, expect, it } from 'vitest';
import { MongoAlertSettingsRepo } from './alert-settings-repo.ts';
import type { MongoConnection } from './connection.ts';

describe('recording a notice’s try (MongoDB)', () => {
  it('moves the notice on (its claim’s) and keeps the try by its claim, in one transaction, the try an insert-once upsert', async () => {
    const calls: [string, unknown, unknown, unknown][] = [];
    const session = { id: 'session-1' };
    const conn = {
      transaction: async (fn: (s: unknown) => Promise<unknown>) => fn(session),
      alertNotices: {
        findOne: async (filter: unknown, options: { session?: unknown }) => (
          calls.push(['notice.findOne', filter, undefined, options.session]), { orgId: 'org_1', targetId: 'atg_1', type: 'alert.test' }
        ),
        updateOne: async (filter: unknown, update: unknown, options: { session?: unknown }) => (
          calls.push(['notice.updateOne', filter, update, options.session]), {}
        ),
      },
      alertNoticeAttempts: {
        updateOne: async (filter: unknown, update: unknown, options: { session?: unknown; upsert?: boolean }) => (
          calls.push(['try.updateOne', filter, { update, upsert: options.upsert }, options.session]), {}
        ),
      },
    } as unknown as MongoConnection;
    const attempt = { at: 1_000, responseStatus: 200, error: null, durationMs: 5 };
    await new MongoAlertSettingsRepo(conn).recordNoticeAttempt('ntc_1', 'claim-1', attempt, true, null);
    expect(calls.map(([what, filter, , s]) => [what, filter, s])).toEqual([
      ['notice.findOne', { _id: 'ntc_1' }, session],
      ['notice.updateOne', { _id: 'ntc_1', claim: 'claim-1' }, session],
      ['try.updateOne', { _id: 'ntc_1:claim-1' }, session],
    ]);
    expect(calls[2]![2]).toEqual({
      update: { $setOnInsert: { noticeId: 'ntc_1', orgId: 'org_1', targetId: 'atg_1', type: 'alert.test', ...attempt, atDate: new Date(1_000) } },
      upsert: true,
    });
  });
});
