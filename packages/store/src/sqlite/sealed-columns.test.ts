// Every SQLite column that holds sealed text is in SEALED_COLUMNS, the registry `secrets
// reseal` walks: a sealed column added without it would become unreadable at the first key
// rotation (the old key is retired once the walk is done).
import { describe, expect, it } from 'vitest';
import { SEALED_COLUMNS } from '../ports/sealing-port.ts';
import { DatabaseSync } from 'node:sqlite';
import { migrate } from './migrations.ts';

/** The key ring's own check values: sealed with a fixed binding, handled by keyChecks, not re-sealed. */
const NOT_SECRETS = new Set(['sealing_key_checks.sealed']);
/**
 * Columns of JSON holding sealed text in a field, under a name that does not say so (their
 * other fields are not secret): endpoints' custom headers (`{ sealed, shown }`) and client
 * certificates (`{ certificate, sealedKey, serverCa, info }`).
 */
const SEALED_IN_JSON = new Set(['endpoints.headers', 'endpoints.tls', 'endpoints.auth']);

describe('SEALED_COLUMNS', () => {
  it('names every column of the schema that holds sealed text', () => {
    const db = new DatabaseSync(':memory:');
    try {
      migrate(db);
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((r) => String(r['name']));
      const columns = tables.flatMap((table) =>
        db
          .prepare(`PRAGMA table_info(${table})`)
          .all()
          .map((c) => `${table}.${String(c['name'])}`),
      );
      expect(columns).toEqual(expect.arrayContaining([...SEALED_IN_JSON]));
      const sealed = columns.filter((column) => (/seal|secret/i.test(column.split('.')[1]!) && !NOT_SECRETS.has(column)) || SEALED_IN_JSON.has(column));
      expect(sealed.sort()).toEqual(
        Object.values(SEALED_COLUMNS)
          .map((c) => c.sqlite)
          .sort(),
      );
    } finally {
      db.close();
    }
  });
});
