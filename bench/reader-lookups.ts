// `node bench/reader-lookups.ts [--rounds N]`: what an API request's key lookup
// (`apiKeys.findByHash`) costs the store's reader connection between the writer's commits (issue
// 46): the store's two point reads on one snapshot against the join of the two tables it
// replaced. In this process, no Wirehook started: a SQLite store on a fresh file (the writer, 64
// endpoints over 64 consumers) commits 25 bench messages at a time, as e2e's writes commit; after
// each commit, two read-only connections (one a side, so each pays for its own page cache's loss)
// take turns, the first alternating, at 10 lookups each: the store's reader (`openSqliteReader`,
// calling `findByHash`) and a plain connection running the join, mapped to the same fields. Each
// commit empties a reading connection's page cache, so the first lookup after it reads its pages
// again; the rest find them. Timed on the wall clock (synchronous calls, nothing else running);
// medians over the rounds, the first 100 left out. A measurement, not a test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { newId } from '@wirehook/core';
import { toApiKey } from '../packages/store/src/sqlite/mappers.ts';
import { openSqliteReader, openSqliteStore } from '../packages/store/src/sqlite/open-sqlite-store.ts';
import { int, text, textOrNull } from '../packages/store/src/sqlite/row.ts';
import { median, round } from './report/stats.ts';
import { payloadJson } from './setup/payload.ts';
import { benchMessage, benchTenant } from './store-writes.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string' } } });
const rounds = Number(values.rounds ?? 2_000);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds: a whole number of commits, 1 or more (not ${values.rounds})`);
const CREATES = 25;
const LOOKUPS = 10;

/** The lookup as one statement, as the store made it until the thirty-second session. */
const JOINED = `SELECT k.*, o.name AS org_name, o.plan AS org_plan, o.owner_email AS org_owner_email, o.created_at AS org_created_at
  FROM api_keys k JOIN orgs o ON o.id = k.org_id WHERE k.key_hash = ?`;

const dir = mkdtempSync(join(tmpdir(), 'wirehook-reader-lookups-'));
const path = join(dir, 'store.sqlite');
const store = openSqliteStore({ path });
// Both sides' connections, opened on the migrated file: their statements are prepared when first run.
const reader = openSqliteReader(path);
const joinedDb = new DatabaseSync(path, { readOnly: true });
try {
  const { clock, t } = await benchTenant(store, 64, 64);
  const hash = 'a'.repeat(64);
  await store.apiKeys.create(
    { id: newId('key', clock), orgId: t.orgId, env: t.env, scopes: [], createdAt: clock.now(), revokedAt: null, expiresAt: null },
    hash,
  );
  const joined = joinedDb.prepare(JOINED);
  const sides = [
    {
      name: 'the join (before)',
      lookup: () => {
        const row = joined.get(hash);
        if (row === undefined) return null;
        const org = {
          id: text(row, 'org_id'),
          name: text(row, 'org_name'),
          plan: text(row, 'org_plan'),
          ownerEmail: textOrNull(row, 'org_owner_email'),
          createdAt: int(row, 'org_created_at'),
        };
        return { key: toApiKey(row), org };
      },
    },
    { name: 'findByHash (two reads, one snapshot)', lookup: () => reader.apiKeys.findByHash(hash) },
  ];
  const first = sides.map(() => [] as number[]);
  const rest = sides.map(() => [] as number[]);
  const payload = payloadJson(1024);
  for (let commit = -100; commit < rounds; commit++) {
    await Promise.all(
      Array.from({ length: CREATES }, (_, k) => {
        clock.advance(1);
        return store.messages.create(t, benchMessage(clock, t, payload, undefined, `bench${k}`));
      }),
    );
    for (const side of commit % 2 === 0 ? [0, 1] : [1, 0]) {
      let start = process.hrtime.bigint();
      for (let i = 0; i < LOOKUPS; i++) {
        if ((await sides[side]!.lookup()) === null) throw new Error('the key was not found');
        const end = process.hrtime.bigint();
        if (commit >= 0) (i === 0 ? first : rest)[side]!.push(Number(end - start));
        start = end;
      }
    }
  }
  const us = (samples: number[]) => round(median(samples)! / 1000, 2);
  process.stdout.write(
    `reader lookups: ${rounds} commits of ${CREATES} creates, ${LOOKUPS} lookups a side after each; ` +
      `µs a lookup, medians: the first after a commit, the rest\n` +
      sides.map((side, i) => `  ${side.name}: ${us(first[i]!)}, ${us(rest[i]!)}\n`).join(''),
  );
} finally {
  joinedDb.close();
  await reader.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
