// `pnpm bench --only retention` (or `node bench/retention.ts [--messages N]`): does retention keep
// pace with ingest without slowing another tenant? The figures, each against a baseline
// of the same run. Embedded Wirehook on a fresh DATA_DIR:
// 1. the API probe's idle p99 (another org GETs its event types 50 times a second);
// 2. the intake rate: 64 consumers of 16 Business orgs get messages for paused endpoints at concurrency 64
//    (the whole write, nothing sent: the bench's `intake` scenario), the highest ingest the
//    bench measures;
// 3. N messages five months old (past the default 3-month window) written into the store's
//    file at once, as at a month boundary, and the retention job (every second here) removing
//    them: its rate, and the probe's p99 while it runs.
// Targets: retention's rate ≥ the intake rate (1 ×), the probe's p99 during it ≤ 2 × idle.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { WirehookApi } from './http/wirehook-api.ts';
import { embeddedLauncher } from './launchers/embedded-launcher.ts';
import { tail } from './launchers/processes.ts';
import { ApiProbe } from './load/api-probe.ts';
import { nowMs, sendMessages } from './load/send-messages.ts';
import { round } from './report/stats.ts';
import { seed } from './scale.ts';
import { REFUSING_ENDPOINT } from './settings.ts';
import { payloadJson, sendBody } from './setup/payload.ts';
import { createTenants } from './setup/tenants.ts';
import type { Target } from './setup/topology.ts';

const SENDER_ORGS = 16;
const CONCURRENCY = 64;
const INTAKE_CONSUMERS = 64;
const TARGETS = { rateRatio: 1, probeRatio: 2 };

export interface RetentionFigures {
  messages: number;
  idleP99Ms: number | null;
  intakePerSecond: number;
  retentionPerSecond: number;
  /** retentionPerSecond / intakePerSecond: ≥ 1 keeps pace. */
  rateRatio: number;
  probeP99Ms: number | null;
  /** probeP99Ms / idleP99Ms: ≤ 2. */
  probeRatio: number | null;
  remaining: number;
  probeErrors: number;
  ok: boolean;
}

export async function runRetention(messages: number, intakeCount: number, outDir: string | undefined, log: (line: string) => void): Promise<boolean> {
  const workDir = mkdtempSync(join(tmpdir(), 'wirehook-retention-'));
  const dataDir = join(workDir, 'data');
  const wirehook = await embeddedLauncher.launch({
    dataDir,
    env: { ...REFUSING_ENDPOINT.wirehookEnv, LOG_LEVEL: 'warn', RETENTION_INTERVAL_MS: '1000' },
    logFile: join(workDir, 'wirehook.log'),
    execArgv: [],
  });
  const api = new WirehookApi(wirehook.apiUrl, CONCURRENCY);
  let kept = false;
  try {
    const [old, prober, ...senders] = await createTenants(wirehook, SENDER_ORGS + 2, 'retention');
    const probe = new ApiProbe(wirehook.apiUrl, prober!.key);
    await sleep(5_000);
    const idleP99Ms = probe.window(0, nowMs()).p99;

    // Intake as the bench's `intake` scenario has it: 64 consumers over the sender orgs, each
    // with one paused endpoint (the whole write, nothing sent).
    const payload = payloadJson(1024);
    const targets: Target[] = [];
    for (let i = 0; i < INTAKE_CONSUMERS; i++) {
      const tenant = senders[i % senders.length]!;
      const consumer = `retention-c${i}`;
      const created = await api.expect(201, 'POST', '/v1/consumers', tenant.key, { external_id: consumer });
      const endpoint = await api.expect(201, 'POST', '/v1/endpoints', tenant.key, { consumer_id: created.id, url: `${REFUSING_ENDPOINT.origin}/intake` });
      await api.expect(200, 'PATCH', `/v1/endpoints/${endpoint.id}`, tenant.key, { status: 'paused' });
      targets.push({ tenant, consumer, endpoints: [], body: sendBody(consumer, payload) });
    }
    await sendMessages(api, targets, 0, Math.ceil(intakeCount / 8), CONCURRENCY); // warm-up
    const sent = await sendMessages(api, targets, 0, intakeCount, CONCURRENCY);
    const intakePerSecond = round(sent.accepted / ((sent.finishedAt - sent.startedAt) / 1000));
    log(`retention: intake ${sent.accepted} of ${sent.sent} accepted at ${intakePerSecond}/s`);
    await sleep(2_000); // the intake's own writes settle before the pass

    // N messages five months old at once, then the job walks them away.
    const oldConsumer = await api.expect(201, 'POST', '/v1/consumers', old!.key, { external_id: 'old' });
    const oldEndpoint = await api.expect(201, 'POST', '/v1/endpoints', old!.key, { consumer_id: oldConsumer.id, url: `${REFUSING_ENDPOINT.origin}/old` });
    const file = join(dataDir, 'wirehook.sqlite');
    const fiveMonthsAgo = Date.now() - 150 * 24 * 3600 * 1000;
    seed(file, old!.orgId, oldConsumer.id, 0, fiveMonthsAgo, [{ endpointId: oldEndpoint.id, count: messages, status: 'success' }]);
    const db = new DatabaseSync(file, { readOnly: true });
    const left = () => (db.prepare('SELECT count(*) AS n FROM messages WHERE created_at < ?').get(fiveMonthsAgo + messages) as { n: number }).n;
    // The pass is timed from its first delete to its last (the job runs every second).
    while (left() === messages) await sleep(20);
    const mark = nowMs();
    const started = performance.now();
    while (left() > 0 && performance.now() - started < 600_000) await sleep(100);
    const seconds = (performance.now() - started) / 1000;
    const remaining = left();
    db.close();
    const probeP99Ms = (await probe.windowOf(mark)).p99;
    const probeErrors = probe.window(0, nowMs()).failed;
    await probe.stop();
    const retentionPerSecond = round((messages - remaining) / seconds);
    const rateRatio = round(retentionPerSecond / intakePerSecond);
    const probeRatio = idleP99Ms !== null && probeP99Ms !== null ? round(probeP99Ms / idleP99Ms) : null;
    const ok = remaining === 0 && probeErrors === 0 && rateRatio >= TARGETS.rateRatio && probeRatio !== null && probeRatio <= TARGETS.probeRatio;
    const figures: RetentionFigures = {
      messages,
      idleP99Ms,
      intakePerSecond,
      retentionPerSecond,
      rateRatio,
      probeP99Ms,
      probeRatio,
      remaining,
      probeErrors,
      ok,
    };
    process.stdout.write(
      [
        `retention: ${messages} messages five months old; intake measured at ${intakePerSecond}/s in the same run`,
        '| figure | value | target |',
        '| --- | --- | --- |',
        `| retention rate | ${retentionPerSecond}/s (${remaining} left) | — |`,
        `| rate ÷ intake | ${rateRatio} × | ≥ ${TARGETS.rateRatio} × |`,
        `| other org's p99: idle → during retention | ${idleP99Ms} → ${probeP99Ms} ms | — |`,
        `| p99 ÷ idle | ${probeRatio} × | ≤ ${TARGETS.probeRatio} × |`,
        '',
      ].join('\n'),
    );
    if (outDir) writeFileSync(join(outDir, `retention-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(figures, null, 2));
    return ok;
  } catch (err) {
    log(`retention: failed; Wirehook's log is kept in ${workDir}/wirehook.log:\n${tail(join(workDir, 'wirehook.log'), 20)}`);
    kept = true;
    throw err;
  } finally {
    await api.close();
    await wirehook.stop();
    if (!kept) rmSync(workDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { messages: { type: 'string', default: '200000' }, intake: { type: 'string', default: '16000' }, out: { type: 'string' } },
  });
  const ok = await runRetention(Number(values.messages), Number(values.intake), values.out, (line) => process.stderr.write(`${line}\n`));
  process.exit(ok ? 0 : 1);
}
