import type { BenchContext } from '../context.ts';
import { nowMs, sendMessages, sendPaced, type SendOutcome } from '../load/send-messages.ts';
import type { ReceiverStats } from '../receiver/protocol.ts';
import { CpuMeter } from '../report/proc-stats.ts';
import { recordUsage, emptyRecord, type RunRecord, type ScenarioResult } from '../report/records.ts';
import { round } from '../report/stats.ts';
import type { Tenant } from '../setup/tenants.ts';
import { buildTopology, removeEndpoints, type Target, type Topology } from '../setup/topology.ts';
import { intakeOf } from './delivery-run.ts';

const GROUP = 'ordered';
/** The key whose head fails in the blocked run (the receiver answers 500 to it). */
const BLOCKED_KEY = keyName(0);
/** Share of the unordered drain rate the paced runs offer (below saturation, as e2e's paced run). */
const PACED_SHARE = 0.5;

/**
 * Ordered delivery per key (issue 31), each run on one endpoint per phase, all to the same
 * receiver, messages spread round-robin over `keys` ordering keys:
 * - flat out: `count` messages at the bench's concurrency (closed loop, like e2e), deliveries
 *   per second from the first send to the last receipt, with `ordering: none` and then
 *   `ordering: key` (the target: ordered ≥ 80 % of unordered). One organization per phase:
 *   `count` stays under its 20,000 requests a minute.
 * - paced: `pacedCount` messages at half the unordered rate to an ordered endpoint, then again
 *   with one key's head answered 500 (retried by the default policy, so its lane stays
 *   blocked): the other keys' accept→receive p99 in both.
 * The receiver counts any ordered webhook whose sequence is not above its key's last delivered.
 */
export async function runOrdered(ctx: BenchContext): Promise<ScenarioResult> {
  const { settings } = ctx;
  const runs: RunRecord[] = [];
  for (let run = 1; run <= settings.runs; run++) {
    const tenant = (phase: number) => ctx.tenants[(4 * (run - 1) + phase) % ctx.tenants.length]!;
    const unordered = await flatOut(ctx, `orderednone${run}`, tenant(0), 'none');
    const ordered = await flatOut(ctx, `orderedkey${run}`, tenant(1), 'key');
    const perSecond = Math.max(1, Math.round(unordered.record.perSecond * PACED_SHARE));
    const clean = await paced(ctx, `orderedclean${run}`, tenant(2), perSecond, false);
    const blocked = await paced(ctx, `orderedblocked${run}`, tenant(3), perSecond, true);
    const { record } = ordered;
    record.latencyMs = blocked.latencyMs;
    const outOfOrder = unordered.outOfOrder + ordered.outOfOrder + clean.outOfOrder + blocked.outOfOrder;
    Object.assign(record.extra, {
      unorderedPerSecond: unordered.record.perSecond,
      orderedShare: round(record.perSecond / Math.max(0.001, unordered.record.perSecond), 3),
      offeredPerSecond: perSecond,
      cleanP50: clean.latencyMs?.p50 ?? Number.NaN,
      cleanP99: clean.latencyMs?.p99 ?? Number.NaN,
      blockedP50: blocked.latencyMs?.p50 ?? Number.NaN,
      blockedP99: blocked.latencyMs?.p99 ?? Number.NaN,
      blockedFailedAnswers: blocked.failedAnswers,
      outOfOrder,
    });
    ctx.log(
      `ordered run ${run}: ${record.perSecond}/s ordered vs ${unordered.record.perSecond}/s unordered (${record.extra['orderedShare']}); ` +
        `others' p99 ${clean.latencyMs?.p99} ms, ${blocked.latencyMs?.p99} ms with ${BLOCKED_KEY} blocked; ${outOfOrder} out of order`,
    );
    runs.push(record);
  }
  return {
    name: 'ordered',
    deliveriesPerMessage: 1,
    description: `${settings.ordered.keys.toLocaleString('en')} ordering keys on one endpoint: ordered vs unordered flat out, paced p99 with one key blocked`,
    runs,
  };
}

/** `count` messages to an endpoint of `ordering` at the bench's concurrency: the run's record. */
async function flatOut(ctx: BenchContext, name: string, tenant: Tenant, ordering: 'none' | 'key'): Promise<{ record: RunRecord; outOfOrder: number }> {
  const { api, receiver, settings } = ctx;
  const { topology, targets } = await orderedTopology(ctx, name, tenant, ordering);
  await receiver.reset();
  const meter = new CpuMeter({ wirehook: ctx.wirehook.pids, receiver: receiver.pid });
  const startedAt = nowMs();
  const send = await sendMessages(api, targets, 0, settings.ordered.count, settings.concurrency);
  await waitFor(ctx, send.accepted, 0, name);
  const usage = meter.stop();
  const stats = await receiver.stats(false);
  await removeEndpoints(ctx, topology.endpoints);
  const record = recordOf(send, stats, startedAt, send.accepted);
  recordUsage(record, usage, record.delivered);
  ctx.log(`${name}: ${record.delivered} in ${record.seconds} s (${record.perSecond}/s)`);
  return { record, outOfOrder: stats.outOfOrder };
}

/** `pacedCount` messages at `perSecond` to an ordered endpoint, `blocked`: BLOCKED_KEY's webhooks answered 500. */
async function paced(ctx: BenchContext, name: string, tenant: Tenant, perSecond: number, blocked: boolean) {
  const { api, receiver, settings } = ctx;
  const { topology, targets } = await orderedTopology(ctx, name, tenant, 'key');
  await receiver.reset();
  await receiver.failKeys(blocked ? [BLOCKED_KEY] : []);
  const count = settings.ordered.pacedCount;
  // Message i carries key i mod keys: BLOCKED_KEY (key 0) has every keys-th of them.
  const ofBlocked = blocked ? Math.ceil(count / settings.ordered.keys) : 0;
  const send = await sendPaced(api, targets, 0, count, perSecond, settings.concurrency);
  await waitFor(ctx, send.accepted - ofBlocked, blocked ? 1 : 0, name);
  const stats = await receiver.stats(true);
  await receiver.failKeys([]);
  // Deleting the endpoint fails the blocked lane's head and the deliveries waiting behind it.
  await removeEndpoints(ctx, topology.endpoints);
  const record = recordOf(send, stats, nowMs(), send.accepted - ofBlocked);
  if (record.accepted !== record.sent || record.delivered !== record.expectedDelivered || record.invalid > 0) {
    throw new Error(`${name}: counts do not add up: ${JSON.stringify({ ...record, cpu: undefined })}`);
  }
  ctx.log(`${name} at ${perSecond}/s: p50 ${stats.latencyMs?.p50} ms, p99 ${stats.latencyMs?.p99} ms, ${record.failedAnswers} answered 500`);
  return { latencyMs: record.latencyMs, failedAnswers: record.failedAnswers, outOfOrder: stats.outOfOrder };
}

/** One consumer with one endpoint of `ordering`, and a target per ordering key. */
async function orderedTopology(ctx: BenchContext, name: string, tenant: Tenant, ordering: 'none' | 'key') {
  const topology: Topology = await buildTopology({ ...ctx, tenants: [tenant] }, { name, consumers: 1, endpointsPerConsumer: 1, group: () => GROUP });
  for (const endpoint of topology.endpoints) await ctx.api.expect(200, 'PATCH', `/v1/endpoints/${endpoint.id}`, tenant.key, { ordering });
  const [target] = topology.targets as [Target];
  const targets = Array.from({ length: ctx.settings.ordered.keys }, (_, k) => ({
    ...target,
    body: target.body.replace(/^\{/, `{"ordering_key":"${keyName(k)}",`),
  }));
  return { topology, targets };
}

/** Until `delivered` have arrived at the group (and `failed` were answered 500). */
function waitFor(ctx: BenchContext, delivered: number, failed: number, what: string): Promise<ReceiverStats> {
  return ctx.receiver.waitFor(
    (stats) => (stats.groups[GROUP]?.delivered ?? 0) >= delivered && (stats.groups[GROUP]?.failed ?? 0) >= failed,
    ctx.settings.waitMs,
    `the deliveries of ${what}`,
  );
}

/** A run's counts; its rate over the span from `startedAt` to the group's last receipt. */
function recordOf(send: SendOutcome, stats: ReceiverStats, startedAt: number, expected: number): RunRecord {
  const group = stats.groups[GROUP];
  const record = emptyRecord();
  record.sent = send.sent;
  record.accepted = send.accepted;
  record.rejected = send.rejected;
  record.deliveriesCreated = send.deliveriesCreated;
  record.expectedDelivered = expected;
  record.notDelivered = send.deliveriesCreated - expected;
  record.delivered = group?.delivered ?? 0;
  record.duplicates = group?.duplicates ?? 0;
  record.failedAnswers = group?.failed ?? 0;
  record.invalid = stats.invalid + stats.unknownRoute;
  record.seconds = round(((group?.lastAt ?? startedAt) - startedAt) / 1000, 3);
  record.perSecond = round(record.delivered / Math.max(0.001, record.seconds));
  record.intake = intakeOf(send);
  record.latencyMs = stats.latencyMs ? { p50: round(stats.latencyMs.p50), p99: round(stats.latencyMs.p99), max: round(stats.latencyMs.max) } : null;
  return record;
}

function keyName(k: number): string {
  return `k${String(k).padStart(4, '0')}`;
}
