import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SQLITE_FILE_NAME, type SqliteStore } from './open-sqlite-store.ts';
import { openThreadedSqliteStore } from './threaded-store.ts';

// Its own module: the threaded store builds on open-sqlite-store, so open-sqlite-store must
// not import it back.

/**
 * Opens the SQLite store of embedded mode: `<dataDir>/wirehook.sqlite`, creating the
 * directory, with its connection on a worker thread (see openThreadedSqliteStore).
 */
export function openEmbeddedStore(dataDir: string): SqliteStore {
  mkdirSync(dataDir, { recursive: true });
  return openThreadedSqliteStore({ path: join(dataDir, SQLITE_FILE_NAME) });
}
