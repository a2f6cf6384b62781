import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { ManualClock, newId, type DeliveryId, type Endpoint, type Tenant } from '@wirehook/core';
import { Fixtures } from '../test/contract/fixtures.ts';
import type { AttemptOutcome } from '../src/ports/delivery-port.ts';
import type { NewMessage } from '../src/ports/message-port.ts';
import type { SqliteStore } from '../src/sqlite/open-sqlite-store.ts';

// What one delivered message costs the SQLite store: WAL bytes and pages (by the B-tree
// each page belongs to), wall time and CPU. The hot path of embedded mode — a create that
// claims its delivery, then a completion with a 200 — at the bench's shape: 16 orgs, 64
// consumers of one endpoint each, 1 KB payloads, 64 messages in flight (--concurrency:
// fewer in flight means smaller group commits, so more pages per message).
//
//   ./dev node packages/store/bench/wal-bench.ts [--wal] [--concurrency 8] [--n 5000] [--threaded] [--drop-index a,b]
//
// --wal: a reader pinned to an emptied WAL keeps every frame in the file (no checkpoint can
// reset it), so the file holds every page the run logged. The long WAL slows every read, so
// take times from a run without it. --impl: the directory of another copy of src/sqlite/ to
// measure (e.g. the last commit's, its `../` imports pointed at this package's src), relative
// to this file. --threaded: the store on its worker thread, as embedded mode opens it (the CPU
// then counts both threads); with it or without, the report has the create's and the
// completion's latency as a caller awaits them (p50, p99): the store's share of a send's
// latency in a closed loop. --drop-index a,b: those indexes dropped after the set-up, before the
// warm-up (the hot path must not need them): the most that keeping them out of each commit (kept
// behind in batches, or gone) could save.

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '64' },
    orgs: { type: 'string', default: '16' },
    consumers: { type: 'string', default: '64' },
    payload: { type: 'string', default: '1024' },
    wal: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    impl: { type: 'string', default: '../src/sqlite' },
    'page-size': { type: 'string', default: '4096' },
    threaded: { type: 'boolean', default: false },
    'drop-index': { type: 'string', default: '' },
  },
});
const N = Number(args.n);
const WARMUP = Number(args.warmup);
const CONCURRENCY = Number(args.concurrency);
const PAYLOAD = JSON.stringify({ kind: 'bench', pad: 'x'.repeat(Math.max(0, Number(args.payload) - 24)) });

interface Target {
  t: Tenant;
  externalId: string;
  endpoint: Endpoint;
}

async function setUp(store: SqliteStore, clock: ManualClock): Promise<Target[]> {
  const f = new Fixtures(() => store, clock);
  const tenants: Tenant[] = [];
  for (let i = 0; i < Number(args.orgs); i++) tenants.push(await f.tenant());
  const targets: Target[] = [];
  for (let c = 0; c < Number(args.consumers); c++) {
    const t = tenants[c % tenants.length]!;
    const externalId = `consumer-${c}`;
    const consumer = await f.consumer(t, externalId);
    const endpoint = await f.createEndpoint(t, consumer.id, { eventTypes: null, failingSince: null, disabledReason: null });
    targets.push({ t, externalId, endpoint });
  }
  return targets;
}

function newMessage(clock: ManualClock, target: Target, seq: number): NewMessage {
  clock.advance(1);
  const now = clock.now();
  return {
    id: newId('message', clock),
    eventType: 'bench.event',
    payload: PAYLOAD,
    createdAt: now,
    consumerExternalId: target.externalId,
    newConsumerId: newId('consumer', clock),
    idempotencyKey: seq % 4 === 0 ? `key-${seq}` : null,
    idempotencySince: now - 86_400_000,
    counters: [{ key: `live:${target.t.orgId}:2026-01`, limit: 100_000_000, increment: true, expiresAt: Date.UTC(2026, 3, 1) }],
    claim: { max: 1, leaseUntil: now + 60_000 },
  };
}

function succeeded(clock: ManualClock, target: Target, deliveryId: DeliveryId): AttemptOutcome {
  const at = clock.now();
  return {
    attempt: {
      id: newId('attempt', clock),
      deliveryId,
      endpointId: target.endpoint.id,
      at,
      responseStatus: 200,
      responseHead: 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2',
      durationMs: 3,
      error: null,
      via: 'direct',
      sourceIp: '127.0.0.1',
      url: target.endpoint.url,
    },
    status: 'success',
    nextAttemptAt: null,
    countsTowardPolicy: true,
    endpoint: { succeeded: true },
  };
}

/** Sends `count` messages, `CONCURRENCY` in flight, each created with its claim and then completed. */
async function run(store: SqliteStore, clock: ManualClock, targets: Target[], count: number, first: number, latencies?: Latencies): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const seq = first + next++;
      const target = targets[seq % targets.length]!;
      const t0 = performance.now();
      const created = await store.messages.create(target.t, newMessage(clock, target, seq));
      const t1 = performance.now();
      const job = created.claimed?.[0];
      if (job === undefined) throw new Error('nothing claimed');
      const done = await store.deliveries.complete(
        { tenant: job.tenant, deliveryId: job.delivery.id, endpointId: job.delivery.endpointId, leaseToken: job.leaseToken },
        succeeded(clock, target, job.delivery.id),
      );
      if (!done.applied) throw new Error('completion not applied');
      latencies?.create.push(t1 - t0);
      latencies?.complete.push(performance.now() - t1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

interface Latencies {
  create: number[];
  complete: number[];
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Number((sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0).toFixed(2));
};

/** The page number of every frame in the WAL file. */
function walFramePages(file: string, pageSize: number): number[] {
  const wal = readFileSync(file);
  const pages: number[] = [];
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) pages.push(wal.readUInt32BE(at));
  return pages;
}

/** Frames per message, by the B-tree (table or index) that owns the page. */
function framesByBtree(db: DatabaseSync, pages: number[], n: number): Record<string, number> {
  const owner = new Map<number, string>();
  for (const row of db.prepare('SELECT name, pageno FROM dbstat').all()) owner.set(Number(row['pageno']), String(row['name']));
  const counts = new Map<string, number>();
  for (const page of pages) {
    const name = page === 1 ? 'header' : (owner.get(page) ?? 'free');
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]).map(([name, count]) => [name, Number((count / n).toFixed(2))]));
}

interface Measured {
  ms: number;
  cpuUs: number;
  /** Page numbers of the frames the run added to the WAL; only with --wal. */
  framePages: number[];
  latencies: Latencies;
}

/** Runs the measured messages: with --wal, against a WAL pinned from their start. */
async function measure(store: SqliteStore, path: string, pageSize: number, clock: ManualClock, targets: Target[]): Promise<Measured> {
  let reader: DatabaseSync | undefined;
  if (args.wal) {
    const side = new DatabaseSync(path);
    side.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get();
    side.close();
    reader = new DatabaseSync(path, { readOnly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM orgs').get();
  }
  const cpu = process.cpuUsage();
  const started = performance.now();
  const latencies: Latencies = { create: [], complete: [] };
  await run(store, clock, targets, N, WARMUP, latencies);
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  const framePages = args.wal ? walFramePages(`${path}-wal`, pageSize) : [];
  reader?.exec('COMMIT');
  reader?.close();
  return { ms, cpuUs: user + system, framePages, latencies };
}

/** Drops `names` on a side connection (the store's own connections see the schema change at their next statement). */
function dropIndexes(path: string, names: string[]): void {
  if (names.length === 0) return;
  const side = new DatabaseSync(path);
  try {
    const known = new Set(
      side
        .prepare(`SELECT name FROM sqlite_schema WHERE type = 'index'`)
        .all()
        .map((row) => row['name']),
    );
    for (const name of names) {
      if (!known.has(name)) throw new Error(`--drop-index: no index named ${name}`);
      side.exec(`DROP INDEX "${name}"`);
    }
  } finally {
    side.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'wirehook-wal-bench-'));
  const path = join(dir, 'wal.sqlite');
  const pageSize = Number(args['page-size']);
  const pre = new DatabaseSync(path);
  pre.exec(`PRAGMA page_size = ${pageSize}; CREATE TABLE page_size_set (x INTEGER); DROP TABLE page_size_set;`);
  pre.close();
  const { openSqliteStore } = (await import(`${args.impl}/open-sqlite-store.ts`)) as typeof import('../src/sqlite/open-sqlite-store.ts');
  const { openThreadedSqliteStore } = (await import(`${args.impl}/threaded-store.ts`)) as typeof import('../src/sqlite/threaded-store.ts');
  const store = args.threaded ? openThreadedSqliteStore({ path }) : openSqliteStore({ path });
  const clock = new ManualClock();
  const targets = await setUp(store, clock);
  dropIndexes(path, args['drop-index'].split(',').filter(Boolean));
  await run(store, clock, targets, WARMUP, 0);
  const { ms, cpuUs, framePages, latencies } = await measure(store, path, pageSize, clock, targets);
  await store.close();

  const report: Record<string, unknown> = {
    n: N,
    dropped: args['drop-index'],
    concurrency: CONCURRENCY,
    usPerMessage: Math.round((ms * 1000) / N),
    cpuUsPerMessage: Math.round(cpuUs / N),
    createMs: { p50: percentile(latencies.create, 50), p99: percentile(latencies.create, 99) },
    completeMs: { p50: percentile(latencies.complete, 50), p99: percentile(latencies.complete, 99) },
  };
  const db = new DatabaseSync(path);
  if (args.wal) {
    report['walBytesPerMessage'] = Math.round((framePages.length * (pageSize + 24)) / N);
    report['walPagesPerMessage'] = Number((framePages.length / N).toFixed(2));
    report['walPagesPerMessageByBtree'] = framesByBtree(db, framePages, N);
  }
  const sizes = db.prepare('SELECT name, count(*) AS pages FROM dbstat GROUP BY name ORDER BY pages DESC LIMIT 16').all();
  report['pages'] = sizes.map((row) => `${row['name']}:${row['pages']}`).join(' ');
  db.close();
  console.log(JSON.stringify(report));
  if (args.keep) console.log(path);
  else rmSync(dir, { recursive: true, force: true });
}

await main();
