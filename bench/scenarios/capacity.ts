import { maxInWindow } from '@wirehook/testkit';
import type { BenchContext } from '../context.ts';
import { nowMs, sendMessages } from '../load/send-messages.ts';
import type { ReceiverStats } from '../receiver/protocol.ts';
import { CpuMeter } from '../report/proc-stats.ts';
import { recordUsage, emptyRecord, type RunRecord, type ScenarioResult } from '../report/records.ts';
import { round } from '../report/stats.ts';
import type { Tenant } from '../setup/tenants.ts';
import { buildTopology, removeEndpoints } from '../setup/topology.ts';
import { intakeOf } from './delivery-run.ts';

/** The receiver of fixed capacity: 429 above CAPACITY in flight, each request served in SERVICE_MS. */
export const CAPACITY = 4;
export const SERVICE_MS = 100;
/** The limited endpoint's `rate_limit`, per second. */
export const RATE_LIMIT = 10;
/** More than any real receiver holds: a route that records its answer times and answers at once. */
const UNBOUNDED = 1_000_000;

/**
 * Throughput control per endpoint (issue 32), each run on its own endpoints of one organization:
 * - capacity: `count` messages at once to an endpoint (retries off) whose receiver answers 429
 *   above 4 in flight and 200 after 100 ms otherwise (40/s at most); goodput in the window
 *   from `windowFromS` for `windowS` (or until the backlog ran out) as a share of 40/s, and the
 *   share of requests in it answered 429 (targets: ≥ 90 %, < 5 %), as the adaptive in-flight
 *   limit settles near the receiver's capacity.
 * - rate limit: `rateCount` messages each to an endpoint of `rate_limit` 10 and an unlimited one
 *   beside it: the limited one's most receipts in any one-second window (sliding; target ≤ 12)
 *   and its span, and how long the unlimited one's took.
 */
export async function runCapacity(ctx: BenchContext): Promise<ScenarioResult> {
  const { settings } = ctx;
  const runs: RunRecord[] = [];
  for (let run = 1; run <= settings.runs; run++) {
    const tenant = ctx.tenants[(run - 1) % ctx.tenants.length]!;
    const record = await backlog(ctx, `capacity${run}`, tenant);
    const limits = await rateLimited(ctx, `ratelimit${run}`, tenant);
    Object.assign(record.extra, limits);
    ctx.log(
      `capacity run ${run}: goodput ${record.perSecond}/s (${record.extra['goodputPct']} % of ${(CAPACITY * 1000) / SERVICE_MS}/s), ` +
        `${record.extra['refusedPct']} % answered 429, limit ${record.extra['concurrency']}; ` +
        `rate limit ${RATE_LIMIT}/s: at most ${limits.limitedMaxPerSecond} in a second over ${limits.limitedSeconds} s, ` +
        `unlimited done in ${limits.unlimitedSeconds} s`,
    );
    runs.push(record);
  }
  const { capacity: c } = settings;
  return {
    name: 'capacity',
    deliveriesPerMessage: 1,
    description:
      `${c.count} messages to a receiver of capacity ${CAPACITY} × ${SERVICE_MS} ms (429 above), goodput from ${c.windowFromS} s; ` +
      `${c.rateCount} to a ${RATE_LIMIT}/s endpoint beside an unlimited one`,
    runs,
  };
}

/** The backlog to the receiver of capacity 4: the run's record. */
async function backlog(ctx: BenchContext, name: string, tenant: Tenant): Promise<RunRecord> {
  const { api, receiver, settings } = ctx;
  const { count, windowFromS, windowS } = settings.capacity;
  const group = name;
  const topology = await buildTopology({ ...ctx, tenants: [tenant] }, { name, consumers: 1, endpointsPerConsumer: 1, group: () => group });
  const [endpoint] = topology.endpoints;
  // No retries: a 429 ends its delivery, so every request the receiver sees is a first attempt.
  await api.expect(200, 'PATCH', `/v1/endpoints/${endpoint!.id}`, tenant.key, { retry: { count: 0, interval: '1m' } });
  await receiver.setCapacity([endpoint!.route], CAPACITY, SERVICE_MS);
  await receiver.reset();
  const meter = new CpuMeter({ wirehook: ctx.wirehook.pids, receiver: receiver.pid });
  const startedAt = nowMs();
  const send = await sendMessages(api, topology.targets, 0, count, settings.concurrency);
  const stats = await receiver.waitFor(
    (s) => (s.groups[group]?.delivered ?? 0) + (s.groups[group]?.refused ?? 0) >= send.accepted,
    settings.waitMs,
    `the answers of ${name}`,
  );
  const usage = meter.stop();
  const times = await receiver.times(group);
  const detail = (await api.expect(200, 'GET', `/v1/endpoints/${endpoint!.id}`, tenant.key)) as { throughput?: { concurrency?: number | null } };
  const withLatency: ReceiverStats = await receiver.stats(true);
  await removeEndpoints(ctx, topology.endpoints);

  // The window: from windowFromS after the first send, windowS long or to the last answer.
  const from = startedAt + windowFromS * 1000;
  const last = Math.max(...times.ok, ...times.refused);
  const to = Math.min(from + windowS * 1000, last);
  const inWindow = (t: number) => t >= from && t <= to;
  const ok = times.ok.filter(inWindow).length;
  const refused = times.refused.filter(inWindow).length;
  const seconds = Math.max(0.001, (to - from) / 1000);

  const g = stats.groups[group];
  const record = emptyRecord();
  record.sent = send.sent;
  record.accepted = send.accepted;
  record.rejected = send.rejected;
  record.deliveriesCreated = send.deliveriesCreated;
  record.delivered = g?.delivered ?? 0;
  record.duplicates = g?.duplicates ?? 0;
  record.failedAnswers = g?.refused ?? 0;
  // Answered 429 with retries off: those deliveries end failed.
  record.notDelivered = g?.refused ?? 0;
  record.expectedDelivered = send.deliveriesCreated - record.notDelivered;
  record.invalid = stats.invalid + stats.unknownRoute;
  record.seconds = round(seconds, 3);
  record.perSecond = round(ok / seconds);
  record.intake = intakeOf(send);
  const l = withLatency.latencyMs;
  record.latencyMs = l ? { p50: round(l.p50), p99: round(l.p99), max: round(l.max) } : null;
  recordUsage(record, usage, record.delivered);
  Object.assign(record.extra, {
    // Percentages: the report's medians keep one decimal.
    goodputPct: round((100 * record.perSecond) / ((CAPACITY * 1000) / SERVICE_MS), 1),
    refusedPct: round((100 * refused) / Math.max(1, ok + refused), 1),
    refusedInWindow: refused,
    drainSeconds: round((last - startedAt) / 1000, 1),
    concurrency: detail.throughput?.concurrency ?? Number.NaN,
  });
  return record;
}

/** `rateCount` messages each to a 10/s endpoint and to an unlimited one beside it. */
async function rateLimited(ctx: BenchContext, name: string, tenant: Tenant) {
  const { api, receiver, settings } = ctx;
  const count = settings.capacity.rateCount;
  const limitedGroup = `${name}-limited`;
  const openGroup = `${name}-open`;
  const topology = await buildTopology(
    { ...ctx, tenants: [tenant] },
    { name, consumers: 2, endpointsPerConsumer: 1, group: (c) => (c === 0 ? limitedGroup : openGroup) },
  );
  const [limited, open] = topology.endpoints;
  await api.expect(200, 'PATCH', `/v1/endpoints/${limited!.id}`, tenant.key, { rate_limit: RATE_LIMIT });
  // Both routes record their answer times and answer at once.
  await receiver.setCapacity([limited!.route, open!.route], UNBOUNDED, 0);
  await receiver.reset();
  const startedAt = nowMs();
  const send = await sendMessages(api, topology.targets, 0, 2 * count, settings.concurrency);
  const delivered = (s: ReceiverStats, group: string) => s.groups[group]?.delivered ?? 0;
  const openDone = await receiver.waitFor((s) => delivered(s, openGroup) >= count, settings.waitMs, `the unlimited deliveries of ${name}`);
  const stats = await receiver.waitFor((s) => delivered(s, limitedGroup) >= count, settings.waitMs, `the limited deliveries of ${name}`);
  const times = (await receiver.times(limitedGroup)).ok.sort((a, b) => a - b);
  await removeEndpoints(ctx, topology.endpoints);
  if (send.accepted !== 2 * count || stats.invalid + stats.unknownRoute > 0 || delivered(stats, openGroup) !== count) {
    throw new Error(`${name}: counts do not add up: ${JSON.stringify({ accepted: send.accepted, stats })}`);
  }
  return {
    limitedMaxPerSecond: maxInWindow(times, 1_000),
    limitedSeconds: round((times.at(-1)! - times[0]!) / 1000, 2),
    unlimitedSeconds: round(((openDone.groups[openGroup]?.lastAt ?? startedAt) - startedAt) / 1000, 2),
  };
}
