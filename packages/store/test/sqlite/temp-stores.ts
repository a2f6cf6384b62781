import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@wirehook/core';
import { afterEach } from 'vitest';
import { Fixtures } from '../contract/fixtures.ts';
import type { Store } from '../../src/store.ts';
import { openSqliteStore, type SqliteConnectionOptions, type SqliteStore } from '../../src/sqlite/open-sqlite-store.ts';

/**
 * SQLite stores on temporary files for the tests of one describe block: after each test the
 * stores it opened are closed and its directories removed. Call it inside the describe.
 */
export function tempStores() {
  const dirs: string[] = [];
  const open: SqliteStore[] = [];

  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'wirehook-store-'));
    dirs.push(dir);
    return dir;
  };
  /** Closes `store` with the test's others. */
  const track = <S extends SqliteStore>(store: S): S => {
    open.push(store);
    return store;
  };
  return {
    tempDir,
    tempFile: (): string => join(tempDir(), 'store.sqlite'),
    track,
    openFile: (path: string, options: Omit<SqliteConnectionOptions, 'path'> = {}): SqliteStore => track(openSqliteStore({ path, ...options })),
    fixtures: (store: Store) => new Fixtures(() => store, new ManualClock()),
  };
}
