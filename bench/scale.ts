// `pnpm bench --only scale` (or `node bench/scale.ts [--deliveries N]`): the cost of the calls
// whose work used to grow with the data behind them, measured from outside on a large store —
// issue 26's black-box run. Embedded Wirehook on a fresh DATA_DIR; one Business org gets ten
// endpoints and, written straight into its SQLite file (the API would take hours), N
// deliveries, a tenth behind each: five endpoints' retrying (paused five at once, then resumed
// five at once), five endpoints' failed (five recoveries started at once); then one retrying
// and one failed endpoint deleted at once, a filtered listing, and a retention pass over N/10
// messages five months old. Meanwhile another org probes the API 50 times a second.
// Reported: each call's time (all five answered), the probe's p99 in the five seconds from it
// (against the probe's idle p99 of the same run), the retention pass's rate, and Wirehook's
// RSS. Issue 26's limits: each call ≤ 200 ms, the probe's p99 ≤ 250 ms, RSS growth < 200 MB.
// Issue 33: one more endpoint has N attempts behind it over the last 7 days (its rollups made
// from them: setup/seed-attempts.ts); its stats of each window, and those of an endpoint with
// N/10 deliveries waiting, each ≤ 50 ms, the 7d attempts equal to a count of the attempts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { firstIdAt } from '@wirehook/core';
import { WirehookApi } from './http/wirehook-api.ts';
import { embeddedLauncher } from './launchers/embedded-launcher.ts';
import { tail } from './launchers/processes.ts';
import { rssBytes } from './report/proc-stats.ts';
import { round } from './report/stats.ts';
import { countAttempts, seedAttempts } from './setup/seed-attempts.ts';
import { REFUSING_ENDPOINT } from './settings.ts';
import { createTenants } from './setup/tenants.ts';
import { ApiProbe } from './load/api-probe.ts';
import { nowMs } from './load/send-messages.ts';

const LIMITS = { callMs: 200, probeP99Ms: 250, rssGrowthMb: 200, statsMs: 50 };
/** How long after a call the probe's p99 is taken (the walk behind it runs then). */
const AFTER_CALL_MS = 5_000;
const SEED_CHUNK = 50_000;
/** Endpoints of each kind (retrying behind it; failed behind it): the "5 at once". */
const EACH = 5;
/** How often the retention job runs here (default 60 s): the pass is timed, not waited for. */
const RETENTION_INTERVAL_MS = 1_000;

interface CallFigure {
  call: string;
  ms: number;
  probeP99Ms: number | null;
  /** Its own limit, when not LIMITS.callMs. */
  limitMs?: number;
}

export async function runScale(deliveries: number, outDir: string | undefined, log: (line: string) => void): Promise<boolean> {
  const workDir = mkdtempSync(join(tmpdir(), 'wirehook-scale-'));
  const dataDir = join(workDir, 'data');
  const wirehook = await embeddedLauncher.launch({
    dataDir,
    env: { ...REFUSING_ENDPOINT.wirehookEnv, LOG_LEVEL: 'warn', RETENTION_INTERVAL_MS: String(RETENTION_INTERVAL_MS) },
    logFile: join(workDir, 'wirehook.log'),
    execArgv: [],
  });
  const api = new WirehookApi(wirehook.apiUrl, 16);
  let workDirKept = false;
  try {
    const [big, other] = await createTenants(wirehook, 2);
    const key = big!.key;
    const consumer = await api.expect(201, 'POST', '/v1/consumers', key, { external_id: 'big', name: 'Big customer' });
    // Nothing listens there: sends fail at once (ECONNREFUSED), no network, no waiting.
    const endpoint = async (name: string) =>
      (await api.expect(201, 'POST', '/v1/endpoints', key, { consumer_id: consumer.id, url: `${REFUSING_ENDPOINT.origin}/${name}`, description: name }))
        .id as string;
    const retrying: string[] = [];
    const failed: string[] = [];
    for (let i = 0; i < EACH; i++) retrying.push(await endpoint(`retrying-${i}`));
    for (let i = 0; i < EACH; i++) failed.push(await endpoint(`failed-${i}`));
    const old = await endpoint('old');
    const statsEndpoint = await endpoint('stats');

    const tenth = Math.floor(deliveries / 10);
    const seedStarted = performance.now();
    const file = join(dataDir, 'wirehook.sqlite');
    // A month ago (nothing due now; the recovery's `since` covers them); retrying ones due in a month.
    const monthAgo = Date.now() - 20 * 24 * 3600 * 1000;
    let n = 0;
    n = seed(file, big!.orgId, consumer.id, n, monthAgo, [
      ...retrying.map((endpointId) => ({ endpointId, count: tenth, status: 'retrying' as const })),
      ...failed.map((endpointId) => ({ endpointId, count: tenth, status: 'failed' as const })),
    ]);
    log(`scale: ${n} deliveries seeded in ${round((performance.now() - seedStarted) / 1000)} s`);
    // N attempts behind one endpoint over the last 7 days, on N/10 delivered deliveries of its own.
    const attemptsStarted = performance.now();
    n = seed(file, big!.orgId, consumer.id, n, Date.now() - 8 * 24 * 3600 * 1000, [{ endpointId: statsEndpoint, count: tenth, status: 'success' }]);
    seedAttempts(file, { orgId: big!.orgId, endpointId: statsEndpoint, count: deliveries, from: Date.now() - 7 * 24 * 3600 * 1000, to: Date.now() });
    log(`scale: ${deliveries} attempts and their rollups seeded in ${round((performance.now() - attemptsStarted) / 1000)} s`);

    const rssBefore = rssBytes(wirehook.pids[0]!);
    let peakRss = rssBefore;
    // Its own thread and connection: used every 20 ms, it never idles into the server's keep-alive timeout.
    const probe = new ApiProbe(wirehook.apiUrl, other!.key);
    const p99Since = (from: number) => probe.window(from, nowMs()).p99;
    await sleep(3_000);
    const idleP99 = p99Since(0);
    const figures: CallFigure[] = [];
    const measure = async (call: string, run: () => Promise<unknown>, limitMs?: number) => {
      const mark = nowMs();
      const started = performance.now();
      await run();
      const ms = performance.now() - started;
      // The walk behind the call (and the sends a resume lets go) run in these seconds.
      await sleep(Math.max(0, AFTER_CALL_MS - (performance.now() - started)));
      peakRss = Math.max(peakRss, rssBytes(wirehook.pids[0]!));
      figures.push({ call, ms: round(ms), probeP99Ms: p99Since(mark), ...(limitMs === undefined ? {} : { limitMs }) });
      log(`scale: ${call}: ${round(ms)} ms, probe p99 ${p99Since(mark)} ms`);
    };
    const all = (ids: string[], call: (id: string) => Promise<unknown>) => Promise.all(ids.map(call));
    await measure(`pause ${EACH} endpoints at once, ${tenth} retrying behind each`, () =>
      all(retrying, (id) => api.expect(200, 'PATCH', `/v1/endpoints/${id}`, key, { status: 'paused' })),
    );
    await measure(`resume the ${EACH} at once (their held deliveries due again)`, () =>
      all(retrying, (id) => api.expect(200, 'PATCH', `/v1/endpoints/${id}`, key, { status: 'active' })),
    );
    await measure(`start ${EACH} recoveries at once, ${tenth} failed behind each`, () =>
      all(failed, (id) => api.expect(202, 'POST', `/v1/endpoints/${id}/recover`, key, { since: Date.now() - 30 * 24 * 3600 * 1000 })),
    );
    await measure('delete a retrying and a failed endpoint at once', () =>
      all([retrying[0]!, failed[EACH - 1]!], (id) => api.expect(204, 'DELETE', `/v1/endpoints/${id}`, key)),
    );
    await measure('list failed messages (filtered page)', () => api.expect(200, 'GET', '/v1/messages?status=failed&limit=50', key));
    let week: { from: number; to: number; attempts: number } | undefined;
    for (const window of ['1h', '24h', '7d']) {
      await measure(
        `stats (window ${window}) of an endpoint with ${deliveries} attempts behind it (≤ ${LIMITS.statsMs})`,
        async () => {
          const stats = await api.expect(200, 'GET', `/v1/endpoints/${statsEndpoint}/stats?window=${window}`, key);
          if (window === '7d') week = stats;
        },
        LIMITS.statsMs,
      );
    }
    const counted = week === undefined ? -1 : countAttempts(file, statsEndpoint, week.from, week.to);
    log(`scale: stats 7d says ${week?.attempts} attempts; the attempts table has ${counted} in [from, to)`);
    await measure(
      `stats of an endpoint with ${tenth} deliveries waiting (≤ ${LIMITS.statsMs})`,
      () => api.expect(200, 'GET', `/v1/endpoints/${retrying[1]}/stats`, key),
      LIMITS.statsMs,
    );

    // Retention: N/10 messages five months old (past the default 3 months) appear at once, as
    // at a month boundary; the job (every RETENTION_INTERVAL_MS here) walks them away.
    const fiveMonthsAgo = Date.now() - 150 * 24 * 3600 * 1000;
    seed(file, big!.orgId, consumer.id, n, fiveMonthsAgo, [{ endpointId: old, count: tenth, status: 'success' }]);
    const mark = nowMs();
    const passStarted = performance.now();
    const db = new DatabaseSync(file, { readOnly: true });
    const left = () => (db.prepare('SELECT count(*) AS n FROM messages WHERE created_at < ?').get(fiveMonthsAgo + tenth) as { n: number }).n;
    while (left() > 0 && performance.now() - passStarted < 600_000) {
      await sleep(200);
      peakRss = Math.max(peakRss, rssBytes(wirehook.pids[0]!));
    }
    const passS = (performance.now() - passStarted) / 1000;
    const remaining = left();
    db.close();
    const retention = { messages: tenth, seconds: round(passS), perSecond: round(tenth / passS), remaining, probeP99Ms: p99Since(mark) };
    log(`scale: retention removed ${tenth - remaining} of ${tenth} old messages in ${round(passS)} s, probe p99 ${p99Since(mark)} ms`);
    const probeErrors = probe.window(0, nowMs()).failed;
    await probe.stop();

    const rssGrowthMb = round((peakRss - rssBefore) / 2 ** 20);
    const ok =
      probeErrors === 0 &&
      figures.every((f) => f.ms <= (f.limitMs ?? LIMITS.callMs) && (f.probeP99Ms ?? 0) <= LIMITS.probeP99Ms) &&
      week?.attempts === counted &&
      retention.remaining === 0 &&
      (retention.probeP99Ms ?? 0) <= LIMITS.probeP99Ms &&
      rssGrowthMb < LIMITS.rssGrowthMb;
    const table = [
      `scale: ${deliveries} deliveries; the other org's idle p99 ${idleP99} ms (${probeErrors} probes unanswered); ` +
        `RSS growth ${rssGrowthMb} MB (limit ${LIMITS.rssGrowthMb})`,
      '| call | time (ms, ≤ 200) | other org p99 after it (ms, ≤ 250) |',
      '| --- | --- | --- |',
      ...figures.map((f) => `| ${f.call} | ${f.ms} | ${f.probeP99Ms} |`),
      `| retention: ${retention.messages} old messages removed (${retention.remaining} left) ` +
        `| ${retention.seconds} s, ${retention.perSecond}/s | ${retention.probeP99Ms} |`,
    ].join('\n');
    process.stdout.write(`${table}\n`);
    if (outDir)
      writeFileSync(
        join(outDir, `scale-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
        JSON.stringify(
          {
            deliveries,
            idleP99,
            probeErrors,
            rssGrowthMb,
            figures,
            retention,
            stats7d: { attempts: week?.attempts, counted },
            limits: LIMITS,
            ok,
          },
          null,
          2,
        ),
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

/**
 * Writes messages and one delivery each straight into the store's SQLite file, in chunks
 * (Wirehook runs meanwhile: each chunk is one short write transaction), numbered from `first`
 * and created from `created` on. @returns the next number.
 */
export function seed(
  file: string,
  orgId: string,
  consumerId: string,
  first: number,
  created: number,
  groups: { endpointId: string; count: number; status: 'retrying' | 'failed' | 'success' }[],
): number {
  const db = new DatabaseSync(file);
  db.exec('PRAGMA busy_timeout = 10000');
  const farFuture = Date.now() + 30 * 24 * 3600 * 1000;
  let n = first;
  for (const group of groups) {
    for (let done = 0; done < group.count; done += SEED_CHUNK) {
      const size = Math.min(SEED_CHUNK, group.count - done);
      const from = n;
      n += size;
      // Ids stamped with their time like Wirehook's (a ULID's 10-character time, then digits): the
      // list's time bound and retention read the time from the id.
      const stamp = firstIdAt('message', created + from - first).slice('msg_'.length, 'msg_'.length + 10);
      db.exec('BEGIN IMMEDIATE');
      db.prepare(
        `WITH RECURSIVE seq(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < ?)
         INSERT INTO messages (id, org_id, env, consumer_id, event_type, payload, idempotency_key, created_at, status)
         SELECT printf('msg_%s%016d', ?, i), ?, 'live', ?, 'scale.test', '{"n":1}', NULL, ? + i - ?, ? FROM seq`,
      ).run(from, from + size, stamp, orgId, consumerId, created, first, group.status);
      db.prepare(
        `WITH RECURSIVE seq(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < ?)
         INSERT INTO deliveries (id, org_id, env, message_id, endpoint_id, url, status, attempt_count, policy_attempts,
                                 next_attempt_at, manual, lease_until, created_at, held)
         SELECT printf('dlv_%s%016d', ?, i), ?, 'live', printf('msg_%s%016d', ?, i), ?, ?, ?, 1, 1, ?, 0, NULL, ? + i - ?, 0 FROM seq`,
      ).run(
        from,
        from + size,
        stamp,
        orgId,
        stamp,
        group.endpointId,
        `${REFUSING_ENDPOINT.origin}/`,
        group.status,
        group.status === 'retrying' ? farFuture : null,
        created,
        first,
      );
      db.exec('COMMIT');
    }
  }
  // The seed's pages copied into the database file here, not by Wirehook's next commit: the
  // checkpoint of a seed (tens of MB) is not part of what is measured.
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  return n;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { deliveries: { type: 'string', default: '1000000' }, out: { type: 'string' } } });
  const ok = await runScale(Number(values.deliveries), values.out, (line) => process.stderr.write(`${line}\n`));
  process.exit(ok ? 0 : 1);
}
