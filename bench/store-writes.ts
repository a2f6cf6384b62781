// `pnpm bench --only store` (or `node bench/store-writes.ts [--runs N] [--deliveries N] [--out DIR]
// [--without INDEX_OR_TRIGGER,…]`, which measures the store with those dropped: what each costs):
// the embedded store's CPU per delivery (issue 46), against a baseline of the same run. In this
// process, no Wirehook started: the SQLite store on a fresh file creates messages with the bench's
// 1 KB payload and the month's usage counter intake sends with each (200 at once), claims the
// deliveries (64 a claimMany call, as a dispatcher claims a turn's wake-ups) and completes each
// with a 200 (64 at once: one group commit each), as the API and the dispatcher call it. The
// baseline is the least a durable
// pipeline writes for the same: a message row, a delivery row with its due index, an attempt row
// and the delivery's status, on node:sqlite in WAL mode, batched the same way, no tenant, no
// usage counter, no rollup, no status, no lanes. Two shapes: one endpoint (e2e) and twenty (fan-out).
// Reported, each the median of the runs: µs of CPU per delivery for create (per message ÷ its
// deliveries), claim and complete, and the store's total ÷ the baseline's.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ManualClock, newId, type DeliveryId, type Tenant } from '@wirehook/core';
import { Fixtures } from '../packages/store/test/contract/fixtures.ts';
import { claimRef, type AttemptOutcome, type DeliveryJob } from '../packages/store/src/ports/delivery-port.ts';
import type { NewMessage } from '../packages/store/src/ports/message-port.ts';
import { openSqliteStore } from '../packages/store/src/sqlite/open-sqlite-store.ts';
import type { Store } from '../packages/store/src/store.ts';
import { median, round } from './report/stats.ts';
import { payloadJson } from './setup/payload.ts';
import { BARE_PIPELINE_SCHEMA } from './setup/bare-schema.ts';
import { usageCounters } from '../services/message-intake/src/message-intake.ts';

const CREATE_BATCH = 200;
/** The plan of the bench's org, as the e2e bench's orgs have it (its monthly limit far above a run's messages). */
const BENCH_PLAN = 'business';
const COMPLETE_BATCH = 64;
// `consumers`: the endpoints are spread over that many, one message to each in turn (the e2e
// bench's 64 consumers of one endpoint each: a batch of completions touches many endpoints,
// each with its own rollup rows and index entries, where one endpoint's share them).
const SHAPES = [
  { name: 'e2e', endpoints: 1, consumers: 1 },
  { name: 'e2e over 64 endpoints', endpoints: 64, consumers: 64 },
  { name: 'fan-out', endpoints: 20, consumers: 1 },
] as const;

/** µs of CPU per delivery, by step. */
interface StepCosts {
  create: number;
  claim: number;
  complete: number;
}

export interface StoreShapeFigures {
  shape: string;
  endpoints: number;
  deliveries: number;
  store: StepCosts & { total: number };
  baseline: StepCosts & { total: number };
  /** store.total ÷ baseline.total. */
  ratio: number;
}

export async function runStoreBench(
  options: { runs: number; deliveries: number; without?: readonly string[] },
  outDir: string | undefined,
  log: (line: string) => void,
): Promise<boolean> {
  const loadAverage = round(loadavg()[0] ?? 0, 2);
  const payload = payloadJson(1024);
  const without = options.without ?? [];
  const figures: StoreShapeFigures[] = [];
  for (const shape of SHAPES) {
    const samples: { store: StepCosts; baseline: StepCosts }[] = [];
    await storeRun(shape, Math.min(2_000, options.deliveries), payload, without); // warm: V8 compiles the first
    for (let run = 0; run < options.runs; run++) {
      // Alternated, each on its own fresh file.
      const baseline = baselineRun(shape.endpoints / shape.consumers, options.deliveries, payload);
      const store = await storeRun(shape, options.deliveries, payload, without);
      samples.push({ store, baseline });
      log(`store: ${shape.name} run ${run + 1}: ${round(sum(store))} µs a delivery against ${round(sum(baseline))} µs`);
    }
    const m = (pick: (s: (typeof samples)[number]) => number) => round(median(samples.map(pick)) ?? Number.NaN);
    const steps = (side: 'store' | 'baseline') => ({
      create: m((s) => s[side].create),
      claim: m((s) => s[side].claim),
      complete: m((s) => s[side].complete),
      total: m((s) => sum(s[side])),
    });
    figures.push({
      shape: shape.name,
      endpoints: shape.endpoints,
      deliveries: options.deliveries,
      store: steps('store'),
      baseline: steps('baseline'),
      ratio: round(median(samples.map((s) => sum(s.store) / sum(s.baseline))) ?? Number.NaN, 2),
    });
  }
  process.stdout.write(
    [
      `store: µs of CPU a delivery, ${options.deliveries} deliveries a run, median of ${options.runs}; ${availableParallelism()} CPUs, load ${loadAverage}` +
        (without.length > 0 ? `; WITHOUT ${without.join(', ')}` : ''),
      '| shape | side | create | claim | complete | total | store ÷ baseline |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...figures.flatMap((f) => {
        const cells = (c: StepCosts & { total: number }) => `${c.create} | ${c.claim} | ${c.complete} | ${c.total}`;
        const shape = f.shape.includes('endpoints') ? f.shape : `${f.shape} (${f.endpoints} endpoint${f.endpoints === 1 ? '' : 's'})`;
        return [`| ${shape} | store | ${cells(f.store)} | ${f.ratio} × |`, `| | baseline | ${cells(f.baseline)} | |`];
      }),
      '',
    ].join('\n'),
  );
  if (outDir)
    writeFileSync(
      join(outDir, `store-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
      JSON.stringify({ loadAverage, ...(without.length > 0 ? { without } : {}), figures }, null, 2),
    );
  return true;
}

const sum = (c: StepCosts) => c.create + c.claim + c.complete;

/** CPU µs since `since`, per `count`. */
function cpuPer(since: NodeJS.CpuUsage, count: number): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / count;
}

/** The store's steps, as the API and the dispatcher call them. */
async function storeRun(
  { endpoints, consumers }: { endpoints: number; consumers: number },
  deliveries: number,
  payload: string,
  without: readonly string[] = [],
): Promise<StepCosts> {
  const dir = mkdtempSync(join(tmpdir(), 'wirehook-store-bench-'));
  const store = openSqliteStore({ path: join(dir, 'store.sqlite') });
  try {
    if (without.length > 0) dropFromSchema(join(dir, 'store.sqlite'), without);
    const { clock, t } = await benchTenant(store, endpoints, consumers);
    const messages = Math.ceil(deliveries / (endpoints / consumers));
    const ids: DeliveryId[] = [];
    let since = process.cpuUsage();
    for (let i = 0; i < messages; i += CREATE_BATCH) {
      const made = await Promise.all(
        Array.from({ length: Math.min(CREATE_BATCH, messages - i) }, (_, k) => {
          clock.advance(1);
          return store.messages.create(t, benchMessage(clock, t, payload, undefined, consumerName((i + k) % consumers, consumers)));
        }),
      );
      for (const m of made) ids.push(...m.deliveryIds);
    }
    const create = cpuPer(since, ids.length);
    const now = clock.now() + 1_000;
    const jobs: DeliveryJob[] = [];
    since = process.cpuUsage();
    for (let i = 0; i < ids.length; i += COMPLETE_BATCH) {
      // As a dispatcher claims the wake-ups of one turn: in one call (MAX_CLAIM_BATCH, 64, a call).
      const claimed = await store.deliveries.claimMany!(ids.slice(i, i + COMPLETE_BATCH), now, now + 60_000);
      for (const job of claimed) if (job !== null && !('failed' in job)) jobs.push(job);
    }
    const claim = cpuPer(since, ids.length);
    if (jobs.length !== ids.length) throw new Error(`claimed ${jobs.length} of ${ids.length} deliveries`);
    since = process.cpuUsage();
    for (let i = 0; i < jobs.length; i += COMPLETE_BATCH) {
      await Promise.all(jobs.slice(i, i + COMPLETE_BATCH).map((job, k) => store.deliveries.complete(claimRef(job), successOutcome(job, now + i + k, clock))));
    }
    const complete = cpuPer(since, jobs.length);
    return { create, claim, complete };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The bench's consumer `c` of `consumers`: `bench` when there is one. */
const consumerName = (c: number, consumers: number) => (consumers === 1 ? 'bench' : `bench${c}`);

/**
 * A fresh tenant on `store` (an org of the e2e bench's plan, BENCH_PLAN) with `endpoints` open
 * endpoints spread over `consumers` consumers (the bench's: `bench`, or `bench0` …), and the clock
 * it was made at.
 */
export async function benchTenant(store: Store, endpoints: number, consumers = 1): Promise<{ clock: ManualClock; t: Tenant }> {
  const clock = new ManualClock();
  clock.set(Date.UTC(2026, 10, 30));
  const f = new Fixtures(() => store, clock);
  const t = await f.tenant('live', BENCH_PLAN);
  const open = { eventTypes: null, failingSince: null, disabledReason: null, compatSignature: null, rateLimit: null, fixedIp: false };
  for (let c = 0; c < consumers; c++) {
    const consumer = await f.consumer(t, consumerName(c, consumers));
    for (let e = 0; e < endpoints / consumers; e++) await f.createEndpoint(t, consumer.id, open, 'v1.bench', endpoints);
  }
  return { clock, t };
}

/**
 * A bench message of `t` created at the clock's time (the bench's event type and consumer), as
 * intake sends it: with the month's usage counter its plan counts (message-intake's
 * usageCounters), read, checked against the plan's limit and moved with each create.
 */
export function benchMessage(clock: ManualClock, t: Tenant, payload: string, claim?: NewMessage['claim'], consumer = 'bench'): NewMessage {
  const createdAt = clock.now();
  return {
    id: newId('message', { now: () => createdAt }),
    eventType: 'bench.event',
    payload,
    createdAt,
    consumerExternalId: consumer,
    newConsumerId: newId('consumer', clock),
    idempotencyKey: null,
    idempotencySince: createdAt - 86_400_000,
    counters: usageCounters(t, BENCH_PLAN, createdAt),
    ...(claim === undefined ? {} : { claim }),
  };
}

/** A 200 answered to `job` at `at`, as the dispatcher records it. */
export function successOutcome(job: DeliveryJob, at: number, clock: ManualClock): AttemptOutcome {
  return {
    attempt: {
      id: newId('attempt', clock),
      deliveryId: job.delivery.id,
      endpointId: job.delivery.endpointId,
      at,
      responseStatus: 200,
      responseHead: 'HTTP/1.1 200 OK',
      durationMs: 12,
      error: null,
      via: 'direct',
      sourceIp: '127.0.0.1',
      url: job.delivery.url,
    },
    status: 'success',
    nextAttemptAt: null,
    countsTowardPolicy: true,
    endpoint: { succeeded: true },
  };
}

/** The least a durable pipeline writes for the same work, batched the same way. */
function baselineRun(endpoints: number, deliveries: number, payload: string): StepCosts {
  const dir = mkdtempSync(join(tmpdir(), 'wirehook-store-baseline-'));
  const db = new DatabaseSync(join(dir, 'baseline.sqlite'));
  try {
    db.exec(BARE_PIPELINE_SCHEMA);
    const insertMessage = db.prepare('INSERT INTO messages (id, payload, created_at) VALUES (?, ?, ?)');
    const insertDelivery = db.prepare("INSERT INTO deliveries (id, message_id, endpoint_id, status, next_attempt_at) VALUES (?, ?, ?, 'pending', ?)");
    const claimOne = db.prepare("UPDATE deliveries SET lease_until = ? WHERE id = ? AND status = 'pending' RETURNING message_id");
    const readPayload = db.prepare('SELECT payload FROM messages WHERE id = ?');
    const insertAttempt = db.prepare('INSERT INTO attempts (id, delivery_id, at, response_status) VALUES (?, ?, ?, 200)');
    const finish = db.prepare("UPDATE deliveries SET status = 'success', next_attempt_at = NULL, lease_until = NULL WHERE id = ?");
    const clock = { now: () => Date.UTC(2026, 10, 30) };
    const batched = (from: number, count: number, each: (i: number) => void) => {
      db.exec('BEGIN IMMEDIATE');
      for (let i = from; i < from + count; i++) each(i);
      db.exec('COMMIT');
    };
    const messages = Math.ceil(deliveries / endpoints);
    const ids: string[] = [];
    let since = process.cpuUsage();
    for (let i = 0; i < messages; i += CREATE_BATCH)
      batched(i, Math.min(CREATE_BATCH, messages - i), (n) => {
        const id = newId('message', clock);
        insertMessage.run(id, payload, n);
        for (let e = 0; e < endpoints; e++) {
          const deliveryId = newId('delivery', clock);
          insertDelivery.run(deliveryId, id, `endpoint-${e}`, n);
          ids.push(deliveryId);
        }
      });
    const create = cpuPer(since, ids.length);
    since = process.cpuUsage();
    for (let i = 0; i < ids.length; i += COMPLETE_BATCH)
      batched(i, Math.min(COMPLETE_BATCH, ids.length - i), (n) => {
        const row = claimOne.get(1, ids[n]!);
        if (row === undefined || readPayload.get(row['message_id'] as string) === undefined) throw new Error('baseline: no claim');
      });
    const claim = cpuPer(since, ids.length);
    since = process.cpuUsage();
    for (let i = 0; i < ids.length; i += COMPLETE_BATCH)
      batched(i, Math.min(COMPLETE_BATCH, ids.length - i), (n) => {
        insertAttempt.run(newId('attempt', clock), ids[n]!, n);
        finish.run(ids[n]!);
      });
    const complete = cpuPer(since, ids.length);
    return { create, claim, complete };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Drops indexes and triggers of the store's schema from the file at `path` (`--without`): what
 * each costs the writes, measured as the difference. The store then answers some reads slower
 * or wrongly (its counts, its lists): a measurement, never a setting.
 */
function dropFromSchema(path: string, names: readonly string[]): void {
  const raw = new DatabaseSync(path);
  try {
    for (const name of names) {
      const found = raw.prepare("SELECT type FROM sqlite_master WHERE name = ? AND type IN ('index', 'trigger')").get(name);
      if (found === undefined) throw new Error(`--without ${name}: the store's schema has no index or trigger of that name`);
      raw.exec(`DROP ${found['type'] === 'index' ? 'INDEX' : 'TRIGGER'} "${name}"`);
    }
  } finally {
    raw.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { runs: { type: 'string' }, deliveries: { type: 'string' }, out: { type: 'string' }, without: { type: 'string' } } });
  const without = values.without?.split(',').filter(Boolean) ?? [];
  await runStoreBench({ runs: Number(values.runs ?? 3), deliveries: Number(values.deliveries ?? 20_000), without }, values.out, (line) =>
    process.stderr.write(`bench ${line}\n`),
  );
}
