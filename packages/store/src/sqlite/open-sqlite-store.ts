import { DatabaseSync } from 'node:sqlite';
import type { Store } from '../store.ts';
import { SQLITE_BUSY_TIMEOUT_MS, SqliteConnection } from './connection.ts';
import { migrate, schemaVersion } from './migrations.ts';
import { reposOn } from './repos.ts';

export { SQLITE_BUSY_TIMEOUT_MS };

/** The database file inside a data directory (embedded mode's DATA_DIR). */
export const SQLITE_FILE_NAME = 'wirehook.sqlite';

/** Where the SQLite store keeps its data. */
export interface SqliteStoreOptions {
  /** A database file (created when missing), or ':memory:' for a private in-memory one. */
  path: string;
}

/** openSqliteStore's options: a test that counts what one batch writes pins its share of bulky writes. */
export interface SqliteConnectionOptions extends SqliteStoreOptions {
  /** A group commit's share of bulky writes, in ms of the thread's CPU (BULKY_SHARE_MS unless given). */
  bulkyShareMs?: number;
}

/** The Store on an embedded SQLite database. */
export interface SqliteStore extends Store {
  readonly path: string;
  /** The schema version after open: the number of migration steps applied, ever. */
  readonly schemaVersion: number;
  /** Migration steps this open applied; 0 when the file was already current. */
  readonly migrationsApplied: number;
}

/**
 * Opens (creating when missing) a SQLite store and migrates its schema. Several processes
 * may open one file at once: WAL lets readers run beside the writer, and writers wait up
 * to SQLITE_BUSY_TIMEOUT_MS for each other.
 * @throws Error when the file cannot be opened or was made by a newer Wirehook.
 */
export function openSqliteStore(options: SqliteConnectionOptions): SqliteStore {
  const db = new DatabaseSync(options.path, { enableForeignKeyConstraints: true });
  try {
    // busy_timeout first: switching to WAL and migrating already take locks.
    db.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    db.exec('PRAGMA foreign_keys = ON');
    db.exec('PRAGMA journal_mode = WAL');
    const migrationsApplied = migrate(db);
    // A savepoint (a claim of a batch, a group commit's writes run again after one failed
    // having written) makes SQLite copy every page it first changes to a sub-journal, a temp
    // file once past 64 KiB: with a savepoint a write, a batch of
    // message creates wrote 79 KB a message to disk, 6 KB with it in memory, where each copy
    // is a memcpy (docs/benchmarks.md, round four: the store writer −26 %). In memory too:
    // statement journals, sorts and temporary tables, each as large as what one statement or
    // write changes or sorts: walks of ≤ 1,000 deliveries; lists read in index order; a
    // retention batch's 250 messages with their deliveries and attempts (15 MB at a fan-out
    // of 200 with 3 attempts each), freed when it commits. Set after migrating: a step that
    // rebuilds an index (the sorter) or rewrites a table spills to disk as before.
    db.exec('PRAGMA temp_store = MEMORY');
    const wal = options.path !== ':memory:' && options.path !== '' && journalMode(db) === 'wal';
    const conn = new SqliteConnection(db, wal ? `${db.location()}-wal` : undefined, options.bulkyShareMs);
    return {
      path: options.path,
      schemaVersion: schemaVersion(db),
      migrationsApplied,
      groupsWrites: true,
      ...reposOn(conn),
      close: async () => conn.close(),
    };
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * A read-only connection to an existing, migrated store file (a threaded store's reader
 * thread): the same repos, whose writes SQLite refuses ("attempt to write a readonly
 * database"), so a write sent here by mistake fails instead of racing the writer.
 */
export function openSqliteReader(path: string): Store {
  const db = new DatabaseSync(path, { readOnly: true });
  db.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  const conn = new SqliteConnection(db);
  return { ...reposOn(conn), close: async () => conn.close() };
}

function journalMode(db: DatabaseSync): string {
  return String(db.prepare('PRAGMA journal_mode').get()?.['journal_mode']).toLowerCase();
}
