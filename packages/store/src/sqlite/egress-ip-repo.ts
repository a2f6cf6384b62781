import type { EgressAddress, OrgId } from '@wirehook/core';
import { foldChanges } from '../egress-change-fold.ts';
import type { NoticeDelivery } from '../ports/alert-settings-port.ts';
import type { EgressChange, EgressIpRepo, PoolAddress, PoolSync } from '../ports/egress-ip-port.ts';
import { insertNotice } from './alert-settings-repo.ts';
import type { SqliteConnection } from './connection.ts';
import { int, intOrNull, json, text, textOrNull } from './row.ts';

/** The fixed IP pool as last seen, in SQLite (a handful of rows for the whole installation). */
export class SqliteEgressIpRepo implements EgressIpRepo {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async sync(pool: readonly PoolAddress[], now: number, noticeMs: number): Promise<PoolSync> {
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
      /** Put back while retiring: not added to the list, but customers told to drop it must hear. */
      const restored: string[] = [];
      for (const { ip, family } of pool) {
        if (!listed.has(ip)) added.push(ip);
        else if (listed.get(ip) !== null) restored.push(ip);
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
      if (listed.size > 0 && added.length + restored.length + retiring.length > 0) {
        // The newest change is the one told, with what those still being told said folded in.
        const older = this.#conn
          .statement('SELECT added, retiring, retiring_at FROM egress_changes WHERE done = 0 ORDER BY seq')
          .all()
          .map((row) => ({ added: json<string[]>(row, 'added'), retiring: json<string[]>(row, 'retiring'), retiringAt: intOrNull(row, 'retiring_at') }));
        const change = foldChanges(older, { added: [...added, ...restored], retiring, retiringAt: retiring.length > 0 ? now + noticeMs : null });
        this.#conn.statement('UPDATE egress_changes SET done = 1 WHERE done = 0').run();
        this.#conn
          .statement('INSERT INTO egress_changes (at, added, retiring, retiring_at) VALUES (?, ?, ?, ?)')
          .run(now, JSON.stringify(change.added), JSON.stringify(change.retiring), change.retiringAt);
      }
      return { added, restored, retiring };
    });
  }

  async pendingChange(): Promise<EgressChange | null> {
    const row = this.#conn.statement('SELECT * FROM egress_changes WHERE done = 0 ORDER BY seq LIMIT 1').get();
    if (row === undefined) return null;
    return {
      id: String(int(row, 'seq')),
      at: int(row, 'at'),
      added: json<string[]>(row, 'added'),
      retiring: json<string[]>(row, 'retiring'),
      retiringAt: intOrNull(row, 'retiring_at'),
      cursor: textOrNull(row, 'cursor') as OrgId | null,
    };
  }

  async fixedIpOrgs(after: OrgId | null, limit: number): Promise<OrgId[]> {
    // One seek per organization on endpoints_fixed_ip: an organization's many endpoints are skipped, not read.
    const next = this.#conn.statement('SELECT org_id FROM endpoints WHERE fixed_ip = 1 AND org_id > ? ORDER BY org_id LIMIT 1');
    const orgs: OrgId[] = [];
    let cursor = after ?? '';
    while (orgs.length < limit) {
      const row = next.get(cursor);
      if (row === undefined) break;
      cursor = text(row, 'org_id');
      orgs.push(cursor as OrgId);
    }
    return orgs;
  }

  async advanceChange(id: string, from: OrgId | null, to: OrgId | null, done: boolean, notices: readonly NoticeDelivery[]): Promise<boolean> {
    return this.#conn.batched(() => {
      const moved = this.#conn
        .statement('UPDATE egress_changes SET cursor = ?, done = ? WHERE seq = ? AND done = 0 AND cursor IS ?')
        .run(to, done ? 1 : 0, Number(id), from);
      if (Number(moved.changes) === 0) return false;
      for (const n of notices) insertNotice(this.#conn, n);
      return true;
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
