// The layout upgrade's lease and version checks, without a server: a connection that answers
// the layout's document from a script and records the writes (a layout-3 database with no
// months, so the upgrade itself writes only the version).
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { SCHEMA_VERSION, upgradeLayout } from './layout-upgrade.ts';

function database(versions: (number | null)[], options: { versionWrite?: Error } = {}) {
  const writes: string[] = [];
  const conn = {
    meta: {
      findOne: async () => {
        const version = versions.length > 1 ? versions.shift() : versions[0];
        return version === null || version === undefined ? null : { _id: 'schema', version };
      },
      updateOne: async (_filter: unknown, update: { $max: { version: number } }) => {
        if (options.versionWrite) throw options.versionWrite;
        writes.push(`version ${update.$max.version}`);
      },
    },
    db: { listCollections: () => ({ toArray: async () => [] }) },
    months: async () => [],
    jobLeases: {
      // The take's pipeline (leaseTakeUpdate): the holder as a literal, the end the server's time plus the length.
      // Taken: the pipeline's holder when its rule holds (`$cond: [rule, { $literal: holder }, '$holder']`).
      findOneAndUpdate: async (_filter: unknown, update: [{ $set: { holder: { $cond: [unknown, { $literal: string }, string] } } }]) => {
        writes.push('lease taken');
        return { _id: 'schema-upgrade', holder: update[0].$set.holder.$cond[1].$literal, takenAt: 1_000 };
      },
      updateOne: async (filter: { holder: string }, update: { $set: { leaseUntil: number } }) => {
        writes.push(`lease given up (${update.$set.leaseUntil}, by its holder: ${typeof filter.holder === 'string'})`);
      },
    },
  };
  return { conn: conn as unknown as MongoConnection, writes };
}

const upgrade = (conn: MongoConnection) => upgradeLayout(conn, 'mongodb://db-0', () => {});

describe('upgradeLayout', () => {
  it(`a layout-3 database: upgraded under the lease to ${SCHEMA_VERSION}, then the lease given up`, async () => {
    const db = database([3]);
    await upgrade(db.conn);
    expect(db.writes).toEqual(['lease taken', `version ${SCHEMA_VERSION}`, 'lease given up (0, by its holder: true)']);
  });

  it('a new database (no version, no single collections): the version written at once, nothing migrated', async () => {
    // The stand-in has no collections to migrate: a migration's first read or index drop would throw here.
    const db = database([null]);
    await upgrade(db.conn);
    expect(db.writes).toEqual(['lease taken', `version ${SCHEMA_VERSION}`, 'lease given up (0, by its holder: true)']);
  });

  it('upgraded by another process between the first read and the lease: read again under it, nothing redone', async () => {
    const db = database([3, SCHEMA_VERSION]);
    await upgrade(db.conn);
    expect(db.writes).toEqual(['lease taken', 'lease given up (0, by its holder: true)']);
  });

  it('a newer layout found under the lease is refused, and the lease given up', async () => {
    const db = database([3, SCHEMA_VERSION + 1]);
    await expect(upgrade(db.conn)).rejects.toThrow(`holds layout ${SCHEMA_VERSION + 1}, written by a newer Wirehook`);
    expect(db.writes).toEqual(['lease taken', 'lease given up (0, by its holder: true)']);
  });

  it('an upgrade that fails gives the lease up, so the next start need not wait for it to run out', async () => {
    const db = database([3], { versionWrite: new Error('not authorized on wirehook to execute command { update: "meta" }') });
    await expect(upgrade(db.conn)).rejects.toThrow('not authorized');
    expect(db.writes).toEqual(['lease taken', 'lease given up (0, by its holder: true)']);
  });

  it('the current layout: nothing taken, nothing written', async () => {
    const db = database([SCHEMA_VERSION]);
    await upgrade(db.conn);
    expect(db.writes).toEqual([]);
  });
});
