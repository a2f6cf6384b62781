import type { MongoConnection } from './connection.ts';

/**
 * Tells the first failure of a streak, per connection, of a read that falls back to another way
 * when it fails (a send's reads before its transaction, a completion's endpoint read before its
 * plain write): one that always failed would make every call slower, unseen. The streak ends at
 * the next success.
 */
export class FailureStreak {
  readonly #failing = new WeakSet<MongoConnection>();
  readonly #what: string;

  constructor(what: string) {
    this.#what = what;
  }

  failed(conn: MongoConnection, err: unknown): void {
    if (this.#failing.has(conn)) return;
    this.#failing.add(conn);
    process.emitWarning(`wirehook: ${this.#what}: ${err instanceof Error ? err.message : String(err)}`);
  }

  succeeded(conn: MongoConnection): void {
    this.#failing.delete(conn);
  }
}
