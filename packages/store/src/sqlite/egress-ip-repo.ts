import type { EgressAddress } from '@wirehook/core';
import type { EgressIpRepo, PoolAddress } from '../ports/egress-ip-port.ts';
import type { SqliteConnection } from './connection.ts';
import { int, intOrNull, text } from './row.ts';

/** The fixed IP pool as last seen, in SQLite (a handful of rows for the whole installation). */
export class SqliteEgressIpRepo implements EgressIpRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async sync(pool: readonly PoolAddress[], now: number, noticeMs: number): Promise<{ added: string[]; retiring: string[] }> {
    return this.#conn.batched(() => {
      const listed = new Map(
        this.#conn
          .statement('SELECT ip, retiring_at FROM egress_ips')
          .all()
          .map((row) => [text(row, 'ip'), intOrNull(row, 'retiring_at')] as const),
      );
      const inPool = new Set(pool.map((a) => a.ip));
      const added: string[] = [];
      const retiring: string[] = [];
      for (const { ip, family } of pool) {
        if (!listed.has(ip)) added.push(ip);
        this.#conn
          .statement('INSERT INTO egress_ips (ip, family, added_at, retiring_at) VALUES (?, ?, ?, NULL) ON CONFLICT (ip) DO UPDATE SET retiring_at = NULL')
          .run(ip, family, now);
      }
      for (const [ip, retiringAt] of listed) {
        if (inPool.has(ip)) continue;
        if (retiringAt !== null && retiringAt <= now) this.#conn.statement('DELETE FROM egress_ips WHERE ip = ?').run(ip);
        else if (retiringAt === null) {
          this.#conn.statement('UPDATE egress_ips SET retiring_at = ? WHERE ip = ?').run(now + noticeMs, ip);
          retiring.push(ip);
        }
      }
      return { added, retiring };
    });
  }

  async list(now: number): Promise<EgressAddress[]> {
    return this.#conn
      .statement(
        `SELECT ip, family, retiring_at FROM egress_ips WHERE retiring_at IS NULL OR retiring_at > ?
         ORDER BY retiring_at IS NOT NULL, family, ip`,
      )
      .all(now)
      .map((row) => ({ ip: text(row, 'ip'), family: int(row, 'family') as 4 | 6, retiringAt: intOrNull(row, 'retiring_at') }));
  }
}
