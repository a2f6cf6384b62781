import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { SQLITE_FILE_NAME, type SqliteStore } from './open-sqlite-store.ts';
import { openThreadedSqliteStore } from './threaded-store.ts';

// Its own module: the threaded store builds on open-sqlite-store, so open-sqlite-store must
// not import it back.

/**
 * Opens the SQLite store of embedded mode: `<dataDir>/wirehook.sqlite`, creating the
 * directory, with its connection on a worker thread (see openThreadedSqliteStore).
 * A new directory is owner-only (0700) and a new database file 0600: they hold every
 * payload and the sealed secrets. SQLite gives its -wal and -shm files the database's mode.
 */
export function openEmbeddedStore(dataDir: string): SqliteStore {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, SQLITE_FILE_NAME);
  // 'a': creates the file (empty, which SQLite takes as a new database) only when missing.
  closeSync(openSync(path, 'a', 0o600));
  return openThreadedSqliteStore({ path });
}
