// WAL pages per delivery, by b-tree and step (issue 46 diagnostic). The store creates messages
// (claiming their deliveries, as embedded intake does) and completes them, on a fresh file,
// while a reader holds a snapshot so no frame is overwritten: every page each step's commits
// wrote is read back from the WAL and named by dbstat. Each step's CPU a delivery too (this
// process's: the store runs on its thread here), beside its pages.
// `node bench/wal-pages.ts [endpoints] [deliveries] [creates a commit] [completions a commit]`.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { claimRef, type DeliveryJob } from '../packages/store/src/ports/delivery-port.ts';
import { openSqliteStore } from '../packages/store/src/sqlite/open-sqlite-store.ts';
import { payloadJson } from './setup/payload.ts';
import { benchMessage, benchTenant, successOutcome } from './store-writes.ts';

const endpoints = Number(process.argv[2] ?? 1);
const deliveries = Number(process.argv[3] ?? 4_000);
const createBatch = Number(process.argv[4] ?? 32);
const completeBatch = Number(process.argv[5] ?? 64);
const dir = mkdtempSync(join(tmpdir(), 'wirehook-wal-pages-'));
const path = join(dir, 'store.sqlite');
const store = openSqliteStore({ path });
const { clock, t } = await benchTenant(store, endpoints);
const reader = new DatabaseSync(path);
reader.exec('BEGIN');
reader.prepare('SELECT count(*) FROM messages').get();
const wal = `${path}-wal`;
const marks: number[] = [statSync(wal).size];
const cpu: number[] = [];
let started = process.cpuUsage();
const tookCpu = () => {
  const used = process.cpuUsage(started);
  cpu.push(used.user + used.system);
  started = process.cpuUsage();
};
const payload = payloadJson(1024);
const messages = Math.ceil(deliveries / endpoints);
const jobs: DeliveryJob[] = [];
for (let i = 0; i < messages; i += createBatch) {
  const made = await Promise.all(
    Array.from({ length: Math.min(createBatch, messages - i) }, () => {
      clock.advance(1);
      return store.messages.create(t, benchMessage(clock, t, payload, { max: 1_000, leaseUntil: clock.now() + 60_000 }));
    }),
  );
  for (const m of made) jobs.push(...(m.claimed ?? []));
}
tookCpu();
marks.push(statSync(wal).size);
const owners = [pageOwners()];
const now = clock.now() + 10;
started = process.cpuUsage();
for (let i = 0; i < jobs.length; i += completeBatch) {
  await Promise.all(jobs.slice(i, i + completeBatch).map((job, k) => store.deliveries.complete(claimRef(job), successOutcome(job, now + i + k, clock))));
}
tookCpu();
marks.push(statSync(wal).size);
const bytes = readFileSync(wal);
owners.push(pageOwners());
reader.exec('COMMIT');
const pageSize = bytes.readUInt32BE(8);
const frame = 24 + pageSize;
const steps = ['create (claimed)', 'complete'];
console.log(`${endpoints} endpoint(s), ${jobs.length} deliveries, creates ${createBatch} a commit, completions ${completeBatch}`);
for (let s = 0; s < steps.length; s++) {
  const from = Math.max(32, marks[s]!);
  const by = new Map<string, number>();
  let frames = 0;
  let commits = 0;
  let stale = 0;
  for (let o = from; o + frame <= marks[s + 1]!; o += frame) {
    const page = bytes.readUInt32BE(o);
    if (bytes.readUInt32BE(o + 8) !== bytes.readUInt32BE(16)) stale++;
    if (bytes.readUInt32BE(o + 4) !== 0) commits++;
    frames++;
    const name = owners[s]!.get(page) ?? `page ${page}?`;
    by.set(name, (by.get(name) ?? 0) + 1);
  }
  const perDelivery = (frames / jobs.length).toFixed(2);
  const cpuUs = (cpu[s]! / jobs.length).toFixed(1);
  console.log(`\n${steps[s]}: ${frames} pages in ${commits} commits, ${perDelivery} a delivery (stale ${stale}); CPU ${cpuUs} µs a delivery`);
  for (const [name, n] of [...by].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / jobs.length).toFixed(3)}  ${name}`);
}
await store.close();
reader.close();
rmSync(dir, { recursive: true, force: true });

/** Each page's b-tree as of now; the reader's snapshot is taken again at once (the WAL is kept). */
function pageOwners(): Map<number, string> {
  reader.exec('COMMIT');
  const names = new Map<number, string>();
  for (const row of reader.prepare('SELECT name, pageno FROM dbstat').all()) names.set(Number(row['pageno']), String(row['name']));
  reader.exec('BEGIN');
  reader.prepare('SELECT count(*) FROM messages').get();
  return names;
}
