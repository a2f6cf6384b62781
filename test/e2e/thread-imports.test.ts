// What embedded mode's worker threads import: neither zod nor @wirehook/core's root, which builds
// every schema of the API as it loads (≈ 150 ms of CPU in each thread that imports it; the store's
// writer and reader and the egress thread start with every process). Their modules take core
// through '@wirehook/core/without-schemas' (packages/core/src/without-schemas.ts says why). And
// what none of its threads calls: ICU (packages/core/src/thousands.ts says why). Seen in a real
// process, what `./dev start` runs, as it starts, sends, retries and records: a preload that Node
// runs in every thread records what each one resolves and who calls ICU.
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ApiClient, eventually, freePort } from '@wirehook/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { collectStderr, EMBEDDED_START_MS, runAdmin, spawnEmbedded, whileRunning } from '../support/embedded-process.ts';
import { icuRecorder } from '../support/icu-recorder.ts';
import { startReceiver, TEST_ALLOW_HOSTS } from '../support/receivers.ts';

const dir = mkdtempSync(join(tmpdir(), 'thread-imports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a thread must not resolve: zod itself, or core's root (which imports it). */
const SCHEMA_MODULES = /\/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?zod\/|\/packages\/core\/src\/index\.ts$/;

interface ThreadRecord {
  threadId: number;
  /** The thread's argv as its preload saw it: a Wirehook thread's module is named there (startThread). */
  argv: string;
  schemaModules: string[];
  /** Who called ICU (icu-recorder.ts), one line each. */
  icuCalls: string[];
  /** 'recorded' when each of the thread's ICU wrappers recorded its own check. */
  icuSelfCheck: string;
}

/** Each thread's record, written line by line by the preload as it went (a thread ended by terminate() has no exit to write at). */
function readRecords(records: string): ThreadRecord[] {
  return readdirSync(records).map((name) => {
    const [first, ...lines] = readFileSync(join(records, name), 'utf8').trim().split('\n');
    const tagged = (tag: string) => lines.filter((line) => line.startsWith(`${tag} `)).map((line) => line.slice(tag.length + 1));
    return {
      threadId: Number(/^thread-(\d+)\.txt$/.exec(name)![1]),
      argv: first!.replace(/^argv /, ''),
      schemaModules: tagged('resolved'),
      icuCalls: tagged('icu'),
      icuSelfCheck: tagged('icu-check')[0] ?? 'no check written',
    };
  });
}

/** Every thread's record of one run of embedded mode: started, a message sent, answered 500, retried, delivered. */
let threads: ThreadRecord[];

beforeAll(async () => {
  const records = join(dir, 'records');
  const preload = join(dir, 'record-resolutions.mjs');
  writeFileSync(
    preload,
    `import { appendFileSync, mkdirSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { threadId } from 'node:worker_threads';
mkdirSync(${JSON.stringify(records)}, { recursive: true });
const file = ${JSON.stringify(records)} + '/thread-' + threadId + '.txt';
appendFileSync(file, 'argv ' + process.argv.slice(1).join(' ') + '\\n');
${icuRecorder("(line) => appendFileSync(file, 'icu ' + line + '\\n')")}
appendFileSync(file, 'icu-check ' + icuSelfCheck + '\\n');
const schemaModules = new RegExp(${JSON.stringify(SCHEMA_MODULES.source)});
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    if (schemaModules.test(resolved.url)) appendFileSync(file, 'resolved ' + resolved.url + '\\n');
    return resolved;
  },
});
`,
  );
  const port = await freePort();
  const dataDir = join(dir, 'data');
  const org = (await runAdmin(dataDir, ['org', 'create', '--name', 'Threads', '--plan', 'business'])).json;
  const key = (await runAdmin(dataDir, ['key', 'create', '--org', org['id'], '--env', 'live'])).json['key'] as string;
  const rx = await startReceiver();
  afterAll(() => rx.receiver.close());
  const child = await spawnEmbedded({
    port,
    dataDir,
    env: {
      DELIVERY_ALLOW_HOSTS: TEST_ALLOW_HOSTS,
      DELIVERY_RESOLVE: `${rx.host}:${rx.ip}`,
      NODE_EXTRA_CA_CERTS: rx.receiver.caFile,
      SWEEP_INTERVAL_MS: '100',
      // Only this preload (not ./dev's), and no kept answers to resolve by: every resolution reaches the record.
      NODE_OPTIONS: `--import=${pathToFileURL(preload).href}`,
      NODE_DISABLE_COMPILE_CACHE: '1',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
    },
  });
  const stderr = collectStderr(child);
  try {
    await whileRunning(
      child,
      stderr,
      eventually(async () => expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200), EMBEDDED_START_MS, 100),
    );
    // A key looked up (unknown: 401) starts the store's reader, which answers the API's reads.
    const answer = await fetch(`http://127.0.0.1:${port}/v1/consumers`, { headers: { authorization: `Bearer sk_live_${'x'.repeat(40)}` } });
    expect(answer.status).toBe(401);
    // The whole path of a delivery through the threads: a send answered 500, its retry scheduled and claimed, a send
    // answered 200, each attempt recorded (an import made only on one of those paths is recorded too).
    const api = new ApiClient(`http://127.0.0.1:${port}`, key);
    const consumerId = (await api.post('/v1/consumers', { external_id: 'threads' })).body.id;
    // The default policy: its first re-send 5 s after the first send.
    expect((await api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url() })).status).toBe(201);
    let answered = 0;
    rx.receiver.respondWith(() => (++answered === 1 ? { status: 500 } : { status: 200 }));
    const sent = await api.post('/v1/messages', { consumer: 'threads', event_type: 'thread.test', payload: { n: 1 } });
    expect(sent.status).toBe(202);
    await whileRunning(
      child,
      stderr,
      eventually(
        async () => {
          const { deliveries } = (await api.get(`/v1/messages/${sent.body.id}`)).body;
          expect(deliveries).toEqual([expect.objectContaining({ status: 'success', attempt_count: 2 })]);
        },
        30_000,
        100,
      ),
    );
    // Both attempts reached it (a third would be an attempt sent again after its lease: at least once).
    expect(rx.receiver.requests.length).toBeGreaterThanOrEqual(2);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  threads = readRecords(records);
}, 150_000);

it('embedded mode’s store and egress threads start, send, retry and record without zod or core’s root, which the main thread’s record shows', () => {
  const of = (module: string) => threads.filter((t) => t.argv.includes(module));
  // The writer and the reader, and the egress thread.
  expect(of('/packages/store/src/sqlite/store-worker.ts')).toHaveLength(2);
  expect(of('/packages/egress/src/egress-worker.ts')).toHaveLength(1);
  for (const thread of [...of('store-worker.ts'), ...of('egress-worker.ts')]) expect(thread.schemaModules, thread.argv).toEqual([]);
  // The API's thread builds the schemas it validates with: the record sees zod where it is loaded.
  expect(threads.find((t) => t.threadId === 0)?.schemaModules).toEqual(expect.arrayContaining([expect.stringMatching(/\/zod\//)]));
});

it('no thread of it calls ICU as it starts, sends, retries and records (each thread’s wrappers seen to record)', () => {
  // The main thread, the store's writer and reader, the egress thread at least.
  expect(threads.length).toBeGreaterThanOrEqual(4);
  for (const thread of threads)
    expect({ argv: thread.argv, check: thread.icuSelfCheck, calls: thread.icuCalls }).toEqual({ argv: thread.argv, check: 'recorded', calls: [] });
});
