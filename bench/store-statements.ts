// `node bench/store-statements.ts [--batch N] [--consumers N] [--deliveries N]`: where the
// embedded store's writes spend their time, statement by statement (issue 46). In this process,
// no Wirehook started: the SQLite store on a fresh file creates messages with the bench's 1 KB
// payload and the month's usage counter intake sends, each with its delivery claimed as intake's create claims it (the dispatcher's places
// free), `--batch` at once (25: e2e's writes a commit), then completes each with a 200, as many
// at once. node:sqlite's statements (run, get, all) and execs (COMMIT, BEGIN, the pragmas) are
// timed on the wall clock around each call, by SQL text (its key made after the clock stops, once
// a statement); printed per delivery, largest first, beside the steps' CPU a delivery and what the
// timing itself costs a call. A warm pass first, untimed. A measurement, not a test.
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync, StatementSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { claimRef, type DeliveryJob } from '../packages/store/src/ports/delivery-port.ts';
import { openSqliteStore } from '../packages/store/src/sqlite/open-sqlite-store.ts';
import { payloadJson } from './setup/payload.ts';
import { benchMessage, benchTenant, successOutcome } from './store-writes.ts';

const { values } = parseArgs({ options: { batch: { type: 'string' }, consumers: { type: 'string' }, deliveries: { type: 'string' } } });
const batch = Number(values.batch ?? 25);
const consumers = Number(values.consumers ?? 1);
const deliveries = Number(values.deliveries ?? 20_000);

const times = new Map<string, { calls: number; ns: bigint }>();
let timing = false;
const timed = <T>(key: () => string, call: () => T): T => {
  if (!timing) return call();
  const start = process.hrtime.bigint();
  try {
    return call();
  } finally {
    const ns = process.hrtime.bigint() - start;
    const k = key();
    const entry = times.get(k) ?? { calls: 0, ns: 0n };
    entry.calls++;
    entry.ns += ns;
    times.set(k, entry);
  }
};
const sqlKey = (sql: string, length: number) => sql.replace(/\s+/g, ' ').trim().slice(0, length);
const statementKeys = new WeakMap<StatementSync, string>();
const statementKey = (statement: StatementSync) => {
  let key = statementKeys.get(statement);
  if (key === undefined) statementKeys.set(statement, (key = sqlKey(statement.sourceSQL, 100)));
  return key;
};
for (const method of ['run', 'get', 'all'] as const) {
  const original = StatementSync.prototype[method] as (...args: unknown[]) => unknown;
  (StatementSync.prototype as unknown as Record<string, unknown>)[method] = function (this: StatementSync, ...args: unknown[]) {
    return timed(
      () => statementKey(this),
      () => original.apply(this, args),
    );
  };
}
const exec = DatabaseSync.prototype.exec;
DatabaseSync.prototype.exec = function (this: DatabaseSync, sql: string) {
  return timed(
    () => `exec: ${sqlKey(sql, 60)}`,
    () => exec.call(this, sql),
  );
};

/** What the timing adds to each call: the wrapper around a call that does nothing, ns. */
function timingCostNs(): number {
  const calls = 100_000;
  const was = timing;
  timing = true;
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++)
    timed(
      () => 'the timing itself',
      () => i,
    );
  const ns = Number(process.hrtime.bigint() - start) / calls;
  times.delete('the timing itself');
  timing = was;
  return ns;
}

const dir = mkdtempSync(join(tmpdir(), 'wirehook-store-statements-'));
const store = openSqliteStore({ path: join(dir, 'store.sqlite') });
try {
  const { clock, t } = await benchTenant(store, consumers, consumers);
  const payload = payloadJson(1024);
  const consumer = (i: number) => (consumers === 1 ? 'bench' : `bench${i % consumers}`);
  for (const pass of ['warm', 'timed'] as const) {
    timing = pass === 'timed';
    const jobs: DeliveryJob[] = [];
    const start = process.cpuUsage();
    for (let i = 0; i < deliveries; i += batch) {
      const made = await Promise.all(
        Array.from({ length: Math.min(batch, deliveries - i) }, (_, k) => {
          clock.advance(1);
          return store.messages.create(t, benchMessage(clock, t, payload, { max: 1, leaseUntil: clock.now() + 60_000 }, consumer(i + k)));
        }),
      );
      for (const m of made) jobs.push(...(m.claimed ?? []));
    }
    const created = process.cpuUsage(start);
    if (jobs.length !== deliveries) throw new Error(`claimed ${jobs.length} of ${deliveries} deliveries`);
    for (let i = 0; i < jobs.length; i += batch) {
      const now = clock.now();
      await Promise.all(jobs.slice(i, i + batch).map((job, k) => store.deliveries.complete(claimRef(job), successOutcome(job, now + k, clock))));
    }
    const all = process.cpuUsage(start);
    if (!timing) continue;
    const us = (cpu: NodeJS.CpuUsage) => (cpu.user + cpu.system) / deliveries;
    const perDelivery = (ns: bigint) => (Number(ns) / 1_000 / deliveries).toFixed(2).padStart(6);
    let total = 0n;
    for (const { ns } of times.values()) total += ns;
    const lines = [
      `store statements: ${deliveries} deliveries, ${batch} writes at once, ${consumers} consumer(s); CPU a delivery: create ${us(created).toFixed(1)} µs, ` +
        `complete ${(us(all) - us(created)).toFixed(1)} µs (timing included); in the statements ${perDelivery(total).trim()} µs, wall time; ` +
        `the timing costs ≈ ${Math.round(timingCostNs())} ns a call`,
      'µs a delivery | calls | statement',
      ...[...times]
        .sort((a, b) => Number(b[1].ns - a[1].ns))
        .slice(0, 25)
        .map(([sql, { calls, ns }]) => `${perDelivery(ns)} | ${String(calls).padStart(6)} | ${sql}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
