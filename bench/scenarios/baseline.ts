import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { BenchContext } from '../context.ts';
import { createPool, type UndiciPool } from '../http/undici.ts';
import { closedLoop } from '../load/closed-loop.ts';
import { nowMs } from '../load/send-messages.ts';
import { CpuMeter } from '../report/proc-stats.ts';
import { emptyRecord, type RunRecord, type ScenarioResult } from '../report/records.ts';
import { round, Samples } from '../report/stats.ts';
import { BENCH_EVENT_TYPE } from '../setup/payload.ts';

const ROUTE = 'baseline';

/**
 * The yardstick: a plain undici client POSTing the same webhook body, signed the same way,
 * to the same receiver at the same concurrency. Wirehook cannot beat it on this machine.
 */
export async function runBaseline(ctx: BenchContext): Promise<ScenarioResult> {
  const { receiver, settings } = ctx;
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const key = createSecretKey(Buffer.from(secret.slice(6), 'base64'));
  await receiver.addRoutes([{ id: ROUTE, secret, mode: 'ok', group: ROUTE }]);
  // To its address, checking the certificate for its name: the bench resolves no test names.
  const pool = createPool(`https://${receiver.ip}:${receiver.port}`, settings.concurrency, { ca: receiver.ca.caPem, servername: receiver.host });
  const runs: RunRecord[] = [];
  try {
    for (let run = 1; run <= settings.runs; run++) {
      await receiver.reset();
      await post(ctx, pool, key, `w${run}`, settings.baseline.warmup);
      await receiver.reset();
      const meter = new CpuMeter({ wirehook: ctx.wirehook.pids, receiver: receiver.pid });
      const startedAt = nowMs();
      const latency = await post(ctx, pool, key, `r${run}`, settings.baseline.count);
      const finishedAt = nowMs();
      const usage = meter.stop();
      const stats = await receiver.stats();
      const record = emptyRecord();
      const group = stats.groups[ROUTE];
      record.sent = settings.baseline.count;
      record.accepted = latency.length;
      record.deliveriesCreated = settings.baseline.count;
      record.expectedDelivered = settings.baseline.count;
      record.delivered = group?.delivered ?? 0;
      record.duplicates = group?.duplicates ?? 0;
      record.invalid = stats.invalid + stats.unknownRoute;
      record.seconds = round((finishedAt - startedAt) / 1000, 3);
      record.perSecond = round(record.delivered / Math.max(0.001, record.seconds));
      const l = latency.summary();
      record.latencyMs = l && { p50: round(l.p50), p99: round(l.p99), max: round(l.max) };
      // Wirehook idles through it: its CPU and RSS are not this scenario's.
      record.cpu = usage.cpu;
      record.runQueue = usage.runQueue;
      ctx.log(`baseline run ${run}: ${record.perSecond}/s`);
      runs.push(record);
    }
  } finally {
    await pool.close();
  }
  return { name: 'baseline', deliveriesPerMessage: 1, description: 'undici client → receiver, signed 1 KB webhooks (client-side latency)', runs };
}

/** POSTs `count` signed webhooks; @returns the latency of each 2xx. Throws on any other status. */
async function post(ctx: BenchContext, pool: UndiciPool, key: KeyObject, tag: string, count: number): Promise<Samples> {
  const latency = new Samples();
  const path = `/r/${ROUTE}`;
  await closedLoop(0, count, ctx.settings.concurrency, async (i) => {
    const started = performance.now();
    const id = `msg_baseline_${tag}_${i}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const body = `{"type":"${BENCH_EVENT_TYPE}","timestamp":"${new Date().toISOString()}","data":${ctx.payload}}`;
    const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
    const res = await pool.request({
      method: 'POST',
      path,
      body,
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': `v1,${signature}`,
        'user-agent': 'Wirehook/1',
      },
    });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`baseline: receiver answered ${res.statusCode}`);
    latency.push(performance.now() - started);
  });
  return latency;
}
