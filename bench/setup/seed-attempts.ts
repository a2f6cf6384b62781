// The scale scenario's endpoint with 10^6 attempts behind it: attempts written straight
// into the store's SQLite file beside deliveries already seeded for the endpoint, then that
// endpoint's rollup rows made from those very attempts (GROUP BY over them), so the stats the
// API reads from the rollups are the attempts' own — checked against a count of the attempts.
import { DatabaseSync } from 'node:sqlite';
import { LATENCY_BOUNDS_MS, RECENT_ATTEMPTS, ROLLUP_GRAINS_MS } from '@wirehook/core';

const CHUNK = 100_000;
/** The seeded attempts' ids: this and 16 digits. */
const SEED_ID = 'att_0SCALE';
/** The seeded attempts, by their ids' range: the attempts' primary key, where no index by endpoint is left (schema step 39). */
const SEEDED = `id >= '${SEED_ID}' AND id < '${SEED_ID}~'`;

/** What to seed: `count` attempts from `from` to `to`, spread over the endpoint's deliveries (seeded before). */
export interface AttemptSeed {
  orgId: string;
  endpointId: string;
  count: number;
  from: number;
  to: number;
}

/**
 * Writes the attempts (every tenth a 503, the rest 200; 20–219 ms), one chunk per short write
 * transaction while Wirehook runs, then the endpoint's 5-minute and hourly rollup rows
 * computed from them.
 */
export function seedAttempts(file: string, seed: AttemptSeed): void {
  const db = new DatabaseSync(file);
  db.exec('PRAGMA busy_timeout = 10000');
  const step = (seed.to - seed.from) / seed.count;
  // The endpoint's deliveries numbered 0 … n − 1: attempt i goes to delivery i mod n.
  db.exec('CREATE TEMP TABLE seed_deliveries (k INTEGER PRIMARY KEY, id TEXT NOT NULL)');
  db.prepare('INSERT INTO seed_deliveries (k, id) SELECT row_number() OVER (ORDER BY id) - 1, id FROM deliveries WHERE endpoint_id = ?').run(seed.endpointId);
  const deliveries = Number(db.prepare('SELECT count(*) AS n FROM seed_deliveries').get()?.['n'] ?? 0);
  if (deliveries === 0) throw new Error(`seedAttempts: endpoint ${seed.endpointId} has no deliveries to attach attempts to`);
  for (let done = 0; done < seed.count; done += CHUNK) {
    const size = Math.min(CHUNK, seed.count - done);
    db.exec('BEGIN IMMEDIATE');
    db.prepare(
      `WITH RECURSIVE seq(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < ?)
       INSERT INTO attempts (id, org_id, env, delivery_id, endpoint_id, at, response_status, response_head, duration_ms, error, via, source_ip, url)
       SELECT printf('${SEED_ID}%016d', i), ?, 'live', d.id, ?, CAST(? + i * ? AS INTEGER),
              CASE WHEN i % 10 = 0 THEN 503 ELSE 200 END, NULL, 20 + i % 200,
              CASE WHEN i % 10 = 0 THEN 'http_status: 503' END, 'direct', '127.0.0.1', 'https://127.0.0.1:8443/stats'
       FROM seq JOIN seed_deliveries d ON d.k = seq.i % ?`,
    ).run(done, done + size, seed.orgId, seed.endpointId, seed.from, step, deliveries);
    db.exec('COMMIT');
  }
  // Rollups from the attempts: the two classes seeded (2xx, http_5xx) and the histogram.
  const buckets = LATENCY_BOUNDS_MS.map((bound, i) => `sum(duration_ms > ${i === 0 ? -1 : LATENCY_BOUNDS_MS[i - 1]} AND duration_ms <= ${bound})`);
  for (const grain of ROLLUP_GRAINS_MS) {
    db.exec('BEGIN IMMEDIATE');
    db.prepare(
      `INSERT INTO endpoint_rollups (endpoint_id, grain_ms, at, org_id, env, attempts, succeeded,
         http_4xx, http_5xx, timeout, connection, tls, dns, refused, relay, ${LATENCY_BOUNDS_MS.map((_, i) => `l${i}`).join(', ')})
       SELECT endpoint_id, ${grain}, (at / ${grain}) * ${grain}, org_id, env, count(*), sum(error IS NULL),
         0, sum(error IS NOT NULL), 0, 0, 0, 0, 0, 0, ${buckets.join(', ')}
       FROM attempts WHERE ${SEEDED} AND endpoint_id = ? GROUP BY at / ${grain}`,
    ).run(seed.endpointId);
    db.exec('COMMIT');
  }
  // Its newest attempts, as completions keep them (schema step 39: the endpoint's page reads them).
  db.prepare(
    `INSERT INTO endpoint_recent_attempts (endpoint_id, attempts)
     SELECT ?1, json_group_array(json_array(at, id)) FROM (SELECT at, id FROM attempts WHERE ${SEEDED} AND endpoint_id = ?1 ORDER BY at DESC, id DESC LIMIT ?2)
     WHERE true -- (SQLite's parser: an upsert's SELECT needs a WHERE)
     ON CONFLICT (endpoint_id) DO UPDATE SET attempts = excluded.attempts`,
  ).run(seed.endpointId, RECENT_ATTEMPTS);
  // As scale.ts's seed: the pages go into the database file here, not in a timed call's commit.
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
}

/** The endpoint's seeded attempts made in [from, to) (its only ones: nothing is sent to it), counted in the attempts themselves (the check on the stats). */
export function countAttempts(file: string, endpointId: string, from: number, to: number): number {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const row = db.prepare(`SELECT count(*) AS n FROM attempts WHERE ${SEEDED} AND endpoint_id = ? AND at >= ? AND at < ?`).get(endpointId, from, to);
    return Number(row?.['n'] ?? 0);
  } finally {
    db.close();
  }
}
