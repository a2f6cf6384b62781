import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** One SQLite connection with its prepared statements, shared by the repos of a store. */
export class SqliteConnection {
  readonly db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  /** The prepared statement for `sql`, prepared on first use and reused after. */
  statement(sql: string): StatementSync {
    let stmt = this.#statements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * Runs `fn` in a `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so a
   * check made inside it still holds at the write, whichever process writes next.
   * Rolls back and rethrows when `fn` throws.
   */
  immediate<T>(fn: () => T): T {
    return immediateTransaction(this.db, fn);
  }

  /** Closes the connection; a second call does nothing. */
  close(): void {
    this.#statements.clear();
    if (this.db.isOpen) this.db.close();
  }
}

/** Runs `fn` inside `BEGIN IMMEDIATE … COMMIT` on `db`; rolls back when it throws. */
export function immediateTransaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (err) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw err;
  }
}
