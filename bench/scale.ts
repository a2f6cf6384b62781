// `pnpm bench --only scale` (or `node bench/scale.ts [--deliveries N]`): the cost of the calls
// whose work used to grow with the data behind them, measured from outside on a large store.
// Embedded Wirehook on a fresh DATA_DIR; one Business org gets endpoints and, written straight
// into its SQLite file (the API would take hours), N deliveries: a tenth retrying behind the
// endpoint that is paused and resumed, a tenth retrying behind the one that is deleted, a
// tenth failed behind the one a recovery starts on, the rest delivered. Meanwhile another org
// probes the API 50 times a second. Reported: each call's time, the probe's p99 in the five
// seconds from it (against the probe's idle p99 of the same run), and Wirehook's RSS. Issue 26's limits: each call ≤ 200 ms, the
// probe's p99 ≤ 250 ms, RSS growth < 200 MB.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { WirehookApi } from './http/wirehook-api.ts';
import { embeddedLauncher } from './launchers/embedded-launcher.ts';
import { tail } from './launchers/processes.ts';
import { rssBytes } from './report/proc-stats.ts';
import { percentile, round } from './report/stats.ts';
import { createTenants } from './setup/tenants.ts';

const LIMITS = { callMs: 200, probeP99Ms: 250, rssGrowthMb: 200 };
const PROBE_PER_SECOND = 50;
/** How long after a call the probe's p99 is taken (the walk behind it runs then). */
const AFTER_CALL_MS = 5_000;
const SEED_CHUNK = 50_000;

interface CallFigure {
  call: string;
  ms: number;
  probeP99Ms: number | null;
}

export async function runScale(deliveries: number, outDir: string | undefined, log: (line: string) => void): Promise<boolean> {
  const workDir = mkdtempSync(join(tmpdir(), 'wirehook-scale-'));
  const dataDir = join(workDir, 'data');
  const wirehook = await embeddedLauncher.launch({
    dataDir,
    env: { DELIVERY_ALLOW_HOSTS: '127.0.0.1', LOG_LEVEL: 'warn' },
    logFile: join(workDir, 'wirehook.log'),
    execArgv: [],
  });
  const api = new WirehookApi(wirehook.apiUrl, 16);
  let workDirKept = false;
  try {
    const [big, other] = await createTenants(wirehook, 2);
    const key = big!.key;
    const consumer = await api.expect(201, 'POST', '/v1/consumers', key, { external_id: 'big', name: 'Big customer' });
    // Nothing listens on port 9: sends fail at once (ECONNREFUSED), no network, no waiting.
    const endpoint = async (name: string) =>
      (await api.expect(201, 'POST', '/v1/endpoints', key, { consumer_id: consumer.id, url: `https://127.0.0.1:8443/${name}`, description: name }))
        .id as string;
    const paused = await endpoint('paused');
    const deleted = await endpoint('deleted');
    const recovered = await endpoint('recovered');
    const delivered = await endpoint('delivered');
    // Their retries are far in the future: the dispatcher leaves them alone until released.
    await api.expect(200, 'PATCH', `/v1/endpoints/${paused}`, key, { status: 'active' });

    const tenth = Math.floor(deliveries / 10);
    const seedStarted = performance.now();
    seed(join(dataDir, 'wirehook.sqlite'), big!.orgId, consumer.id, [
      { endpointId: paused, count: tenth, status: 'retrying' },
      { endpointId: deleted, count: tenth, status: 'retrying' },
      { endpointId: recovered, count: tenth, status: 'failed' },
      { endpointId: delivered, count: deliveries - 3 * tenth, status: 'success' },
    ]);
    log(`scale: ${deliveries} deliveries seeded in ${round((performance.now() - seedStarted) / 1000)} s`);

    const rssBefore = rssBytes(wirehook.pids[0]!);
    let peakRss = rssBefore;
    // Its own connection: used every 20 ms, it never idles into the server's keep-alive timeout.
    const probeApi = new WirehookApi(wirehook.apiUrl, 1);
    const probe = new Probe(probeApi, other!.key);
    probe.start();
    await sleep(3_000);
    const idleP99 = probe.p99Since(0);
    const figures: CallFigure[] = [];
    const measure = async (call: string, run: () => Promise<unknown>) => {
      const mark = probe.mark();
      const started = performance.now();
      await run();
      const ms = performance.now() - started;
      // The walk behind the call (and the sends a resume lets go) run in these seconds.
      await sleep(Math.max(0, AFTER_CALL_MS - (performance.now() - started)));
      peakRss = Math.max(peakRss, rssBytes(wirehook.pids[0]!));
      figures.push({ call, ms: round(ms), probeP99Ms: probe.p99Since(mark) });
      log(`scale: ${call}: ${round(ms)} ms, probe p99 ${probe.p99Since(mark)} ms`);
    };
    await measure('pause an endpoint with 10 % of the deliveries retrying', () =>
      api.expect(200, 'PATCH', `/v1/endpoints/${paused}`, key, { status: 'paused' }),
    );
    await measure('resume it (its held deliveries due again)', () => api.expect(200, 'PATCH', `/v1/endpoints/${paused}`, key, { status: 'active' }));
    await measure('delete an endpoint with 10 % retrying', () => api.expect(204, 'DELETE', `/v1/endpoints/${deleted}`, key));
    await measure('start a recovery of 10 % failed', () =>
      api.expect(202, 'POST', `/v1/endpoints/${recovered}/recover`, key, { since: Date.now() - 30 * 24 * 3600 * 1000 }),
    );
    await measure('list failed messages (filtered page)', () => api.expect(200, 'GET', '/v1/messages?status=failed&limit=50', key));
    await probe.stop();
    await probeApi.close();

    const rssGrowthMb = round((peakRss - rssBefore) / 2 ** 20);
    const ok =
      probe.errors === 0 && figures.every((f) => f.ms <= LIMITS.callMs && (f.probeP99Ms ?? 0) <= LIMITS.probeP99Ms) && rssGrowthMb < LIMITS.rssGrowthMb;
    const table = [
      `scale: ${deliveries} deliveries; the other org's idle p99 ${idleP99} ms (${probe.errors} probes unanswered); RSS growth ${rssGrowthMb} MB (limit ${LIMITS.rssGrowthMb})`,
      '| call | time (ms, ≤ 200) | other org p99 after it (ms, ≤ 250) |',
      '| --- | --- | --- |',
      ...figures.map((f) => `| ${f.call} | ${f.ms} | ${f.probeP99Ms} |`),
    ].join('\n');
    process.stdout.write(`${table}\n`);
    if (outDir)
      writeFileSync(
        join(outDir, `scale-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
        JSON.stringify({ deliveries, idleP99, probeErrors: probe.errors, rssGrowthMb, figures, limits: LIMITS, ok }, null, 2),
      );
    return ok;
  } catch (err) {
    log(`scale: failed; Wirehook's log is kept in ${workDir}/wirehook.log:\n${tail(join(workDir, 'wirehook.log'), 20)}`);
    workDirKept = true;
    throw err;
  } finally {
    await api.close();
    await wirehook.stop();
    if (!workDirKept) rmSync(workDir, { recursive: true, force: true });
  }
}

/** Writes messages and one delivery each straight into the store's SQLite file, in chunks (Wirehook runs meanwhile: each chunk is one short write transaction). */
function seed(
  file: string,
  orgId: string,
  consumerId: string,
  groups: { endpointId: string; count: number; status: 'retrying' | 'failed' | 'success' }[],
): void {
  const db = new DatabaseSync(file);
  db.exec('PRAGMA busy_timeout = 10000');
  // A month ago, so nothing is due now and the recovery's `since` (the epoch) covers them.
  const created = Date.now() - 20 * 24 * 3600 * 1000;
  const farFuture = Date.now() + 30 * 24 * 3600 * 1000;
  let n = 0;
  for (const group of groups) {
    for (let done = 0; done < group.count; done += SEED_CHUNK) {
      const size = Math.min(SEED_CHUNK, group.count - done);
      const first = n;
      n += size;
      db.exec('BEGIN IMMEDIATE');
      db.prepare(
        `WITH RECURSIVE seq(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < ?)
         INSERT INTO messages (id, org_id, env, consumer_id, event_type, payload, idempotency_key, created_at, status)
         SELECT printf('msg_0SCALE%016d', i), ?, 'live', ?, 'scale.test', '{"n":1}', NULL, ? + i, ? FROM seq`,
      ).run(first, first + size, orgId, consumerId, created, group.status);
      db.prepare(
        `WITH RECURSIVE seq(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < ?)
         INSERT INTO deliveries (id, org_id, env, message_id, endpoint_id, url, status, attempt_count, policy_attempts, next_attempt_at, manual, lease_until, created_at, held)
         SELECT printf('dlv_0SCALE%016d', i), ?, 'live', printf('msg_0SCALE%016d', i), ?, 'https://127.0.0.1:8443/', ?, 1, 1, ?, 0, NULL, ? + i, 0 FROM seq`,
      ).run(first, first + size, orgId, group.endpointId, group.status, group.status === 'retrying' ? farFuture : null, created);
      db.exec('COMMIT');
    }
  }
  db.close();
}

/** Another org's GET of its event types, PROBE_PER_SECOND times a second, latencies kept in order. */
class Probe {
  readonly #api: WirehookApi;
  readonly #key: string;
  readonly #samples: number[] = [];
  /** Probes that got no answer. */
  errors = 0;
  #running = false;
  #loop: Promise<void> | undefined;

  constructor(api: WirehookApi, key: string) {
    this.#api = api;
    this.#key = key;
  }

  start(): void {
    this.#running = true;
    this.#loop = (async () => {
      while (this.#running) {
        const started = performance.now();
        try {
          await this.#api.expect(200, 'GET', '/v1/event-types', this.#key);
        } catch {
          // A keep-alive connection the server closed as it was reused: counted, and the
          // time it took stays in the samples (the probe saw that latency).
          this.errors++;
        }
        this.#samples.push(performance.now() - started);
        await sleep(Math.max(0, 1000 / PROBE_PER_SECOND - (performance.now() - started)));
      }
    })();
  }

  mark(): number {
    return this.#samples.length;
  }

  p99Since(mark: number): number | null {
    const p = percentile(this.#samples.slice(mark), 99);
    return p === null ? null : round(p);
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { deliveries: { type: 'string', default: '1000000' }, out: { type: 'string' } } });
  const ok = await runScale(Number(values.deliveries), values.out, (line) => process.stderr.write(`${line}\n`));
  process.exit(ok ? 0 : 1);
}
