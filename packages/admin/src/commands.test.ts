// The admin commands' arguments at their limits: a key's expiry (days to a millisecond, at most
// a century) and an organization owner's e-mail (one address: usage e-mails go to it).
import { InvalidError, ManualClock } from '@wirehook/core';
import { openSqliteStore, type SqliteStore } from '@wirehook/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_KEY_EXPIRY_DAYS, runAdminCommand } from './commands.ts';

const DAY_MS = 86_400_000;
const clock = new ManualClock(Date.UTC(2026, 11, 6));
let store: SqliteStore;
beforeEach(() => {
  store = openSqliteStore({ path: ':memory:' });
});
afterEach(async () => store.close());

const admin = (...argv: string[]) => runAdminCommand(argv, { store, clock });

describe('key create --expires-in-days', () => {
  it(`takes days down to a millisecond's worth and up to ${MAX_KEY_EXPIRY_DAYS}, as whole milliseconds`, async () => {
    const org = String((await admin('org', 'create', '--name', 'Acme'))['id']);
    const expires = async (days: string) => (await admin('key', 'create', '--org', org, '--env', 'test', '--expires-in-days', days))['expires_at'];
    expect(await expires(String(MAX_KEY_EXPIRY_DAYS))).toBe(clock.now() + MAX_KEY_EXPIRY_DAYS * DAY_MS);
    expect(await expires('1.5')).toBe(clock.now() + 1.5 * DAY_MS);
    expect(await expires(String(1 / DAY_MS))).toBe(clock.now() + 1);
    // 1.7 ms of a day: whole milliseconds stored (SQLite's column is an integer).
    expect(await expires(String(1.7 / DAY_MS))).toBe(clock.now() + 2);
  });

  it.each(['36501', '1e15', '0.0000000001', '0', 'soon', 'Infinity'])('refuses %s as a bad argument', async (days) => {
    const org = String((await admin('org', 'create', '--name', 'Acme'))['id']);
    const made = admin('key', 'create', '--org', org, '--env', 'test', '--expires-in-days', days);
    await expect(made).rejects.toBeInstanceOf(InvalidError);
    await expect(made).rejects.toThrow(`--expires-in-days must be a number of days, at least a millisecond's worth and at most ${MAX_KEY_EXPIRY_DAYS}`);
  });
});

describe('org create --owner-email', () => {
  it('takes one address, and refuses anything else (a line break would inject a header into the usage e-mail)', async () => {
    expect((await admin('org', 'create', '--name', 'Acme', '--owner-email', 'billing@acme.example'))['id']).toMatch(/^org_/);
    for (const bad of ['notanemail', 'a@b.c\r\nBcc: victim@x.y', 'a@b.c, d@e.f', `${'a'.repeat(320)}@b.c`]) {
      await expect(admin('org', 'create', '--name', 'Acme', '--owner-email', bad)).rejects.toThrow('--owner-email must be one e-mail address');
    }
  });
});
