import { beyondOneLease, type JobLeaseRepo, type LeaseTaken } from '../ports/job-lease-port.ts';
import type { SqliteConnection } from './connection.ts';

/** Named job leases in SQLite: one row per job, taken with one upsert, timed by the caller's clock (one host's). */
export class SqliteJobLeaseRepo implements JobLeaseRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async take(name: string, holder: string, now: number, until: number): Promise<LeaseTaken | null> {
    return this.#conn.immediate(() => {
      // Inserted, or taken over when expired, already this holder's, or held more than one lease
      // beyond what this holder sets (a clock that ran that far ahead: see the port); else left alone.
      this.#conn
        .statement(
          `INSERT INTO job_leases (name, holder, lease_until) VALUES (?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until
           WHERE job_leases.lease_until <= ? OR job_leases.holder = excluded.holder OR job_leases.lease_until > ?`,
        )
        .run(name, holder, until, now, beyondOneLease(now, until));
      const row = this.#conn.statement('SELECT holder FROM job_leases WHERE name = ?').get(name);
      return row !== undefined && row['holder'] === holder ? { at: now } : null;
    });
  }

  async release(name: string, holder: string): Promise<void> {
    this.#conn.immediate(() => {
      this.#conn.statement('UPDATE job_leases SET lease_until = 0 WHERE name = ? AND holder = ?').run(name, holder);
    });
  }
}
