import { randomUUID } from 'node:crypto';
import { readMetric } from '@wirehook/testkit';
import type { BenchContext } from '../context.ts';
import { closedLoop } from '../load/closed-loop.ts';
import { CpuMeter } from '../report/proc-stats.ts';
import { cpuUsPer, emptyRecord, recordUsage, type Latency, type RunRecord, type ScenarioResult } from '../report/records.ts';
import { round, Samples } from '../report/stats.ts';
import { sendBody } from '../setup/payload.ts';
import type { Tenant } from '../setup/tenants.ts';

/** The gateway's IDEMPOTENCY_FRONT settings compared: before (every keyed send to the store), then after. */
export const IDEMPOTENCY_FRONTS = ['off', 'redis'] as const;
export type IdempotencyFront = (typeof IDEMPOTENCY_FRONTS)[number];

/** Concurrent sends of one key in a burst (the 50-way duplicate burst). */
const BURST = 50;
/** Consumers the keyed messages go to; they have no endpoints, so nothing is delivered. */
const CONSUMERS = 16;

const ms = (value: number | undefined) => (value === undefined ? '—' : round(value, 1));

/** Counts of every POST of one run with one setting. */
interface Counts {
  sent: number;
  accepted: number;
  rejected: Record<string, number>;
}

interface ReplayPhase {
  perSecond: number;
  seconds: number;
  latency: Latency | null;
  /** What the CpuMeter measured over the replays (recordUsage), and the replays it counts per. */
  usage: ReturnType<CpuMeter['stop']>;
  replays: number;
  cpuUs: number | null;
  /** Replays not answered 202 with the original id: must be 0. */
  wrongIds: number;
}

interface BurstPhase {
  /** Time from a burst's first send to its last answer, ms. */
  latency: Latency | null;
  /** Sends of a burst that reached message-intake (each a store transaction), mean. */
  intakeCalls: number;
  keys: number;
  /** Keys that made exactly one message (read back through the API): must be all. */
  oneMessage: number;
  /** Bursts whose 202s did not all carry one id: must be 0. */
  splitIds: number;
}

interface Phase extends Counts {
  replay: ReplayPhase;
  burst: BurstPhase;
}

/** Sends of one run: message i has key `<prefix>-i`, on tenant i mod n; POSTs are counted. */
class KeyedSender {
  readonly counts: Counts = { sent: 0, accepted: 0, rejected: {} };
  readonly #ctx: BenchContext;
  readonly #prefix: string;
  readonly #bodies: string[];

  constructor(ctx: BenchContext, prefix: string) {
    this.#ctx = ctx;
    this.#prefix = prefix;
    this.#bodies = Array.from({ length: CONSUMERS }, (_, i) => sendBody(`idem-${i}`, ctx.payload));
  }

  /** Message i: its tenant, key and body. */
  message(i: number): { tenant: Tenant; key: string; body: string } {
    const { tenants } = this.#ctx;
    return { tenant: tenants[i % tenants.length]!, key: `${this.#prefix}-${i}`, body: this.#bodies[i % CONSUMERS]! };
  }

  /** POSTs with `key`; @returns the message id of a 202, else undefined (counted by status). */
  async post(tenant: Tenant, key: string, body: string): Promise<string | undefined> {
    this.counts.sent++;
    const reply = await this.#ctx.api.call('POST', '/v1/messages', tenant.key, body, { 'idempotency-key': key });
    if (reply.status === 202) {
      this.counts.accepted++;
      return String(reply.body.id);
    }
    this.counts.rejected[reply.status] = (this.counts.rejected[reply.status] ?? 0) + 1;
    return undefined;
  }
}

/**
 * Sends with an Idempotency-Key in cluster mode, with the gateway's Redis front off and then
 * on (`launch` starts cluster mode afresh with that setting; main.ts stops whatever ran
 * before, so the two never share the cores). Each run accepts `keys` messages with a key
 * each, then measures (a) replays: `replays` re-sends of those keys at the bench's
 * concurrency (after `warmup` unmeasured ones), each of which must answer the original id;
 * (b) `bursts` 50-way duplicate bursts, one after another, each of a fresh key: how long a
 * burst takes to be answered in full, how many of its sends reached message-intake, and that
 * each key made exactly one message (read back through the API).
 */
export async function runIdempotency(ctx: BenchContext, launch: (front: IdempotencyFront) => Promise<BenchContext>): Promise<ScenarioResult> {
  const phases: Record<IdempotencyFront, Phase[]> = { off: [], redis: [] };
  for (const front of IDEMPOTENCY_FRONTS) {
    const running = await launch(front);
    for (let run = 1; run <= ctx.settings.runs; run++) {
      const phase = await measure(running, `${front}-r${run}`);
      ctx.log(
        `idempotency front ${front}, run ${run}: ${phase.replay.perSecond} replays/s (p99 ${ms(phase.replay.latency?.p99)} ms), ` +
          `50-way burst p50 ${ms(phase.burst.latency?.p50)} ms, ${phase.burst.intakeCalls} sends to intake per burst`,
      );
      phases[front].push(phase);
    }
  }
  const runs = phases.off.map((off, i) => record(off, phases.redis[i]!));
  return {
    name: 'idempotency',
    deliveriesPerMessage: 0,
    description: 'Idempotency-Key sends in cluster mode, IDEMPOTENCY_FRONT off then redis: replays at the bench concurrency, 50-way duplicate bursts',
    runs,
  };
}

async function measure(ctx: BenchContext, prefix: string): Promise<Phase> {
  const { keys } = ctx.settings.idempotency;
  const sender = new KeyedSender(ctx, prefix);
  const ids: (string | undefined)[] = new Array(keys);
  await closedLoop(0, keys, ctx.settings.concurrency, async (i) => {
    const { tenant, key, body } = sender.message(i);
    ids[i] = await sender.post(tenant, key, body);
  });
  const replay = await measureReplays(ctx, sender, ids);
  const burst = await measureBursts(ctx, sender, prefix);
  return { ...sender.counts, replay, burst };
}

/** Re-sends the accepted keys round-robin: `warmup` unmeasured, then `replays` measured. */
async function measureReplays(ctx: BenchContext, sender: KeyedSender, ids: readonly (string | undefined)[]): Promise<ReplayPhase> {
  const { warmup, replays } = ctx.settings.idempotency;
  const replay = async (i: number, latency?: Samples): Promise<boolean> => {
    const { tenant, key, body } = sender.message(i % ids.length);
    const started = performance.now();
    const id = await sender.post(tenant, key, body);
    if (id !== undefined) latency?.push(performance.now() - started);
    return id !== undefined && id === ids[i % ids.length];
  };
  await closedLoop(0, warmup, ctx.settings.concurrency, async (i) => void (await replay(i)));

  const latency = new Samples();
  let wrongIds = 0;
  const meter = new CpuMeter({ wirehook: ctx.wirehook.pids, receiver: ctx.receiver.pid });
  const startedAt = performance.now();
  await closedLoop(0, replays, ctx.settings.concurrency, async (i) => {
    if (!(await replay(i, latency))) wrongIds++;
  });
  const seconds = (performance.now() - startedAt) / 1000;
  const usage = meter.stop();
  return {
    perSecond: Math.round(latency.length / seconds),
    seconds: round(seconds, 3),
    latency: latency.summary(),
    usage,
    replays: latency.length,
    cpuUs: cpuUsPer(usage.cpuSeconds.wirehook, latency.length),
    wrongIds,
  };
}

/** `bursts` bursts, one after another, of 50 concurrent sends of a fresh key each. */
async function measureBursts(ctx: BenchContext, sender: KeyedSender, prefix: string): Promise<BurstPhase> {
  const { api, wirehook } = ctx;
  const { bursts } = ctx.settings.idempotency;
  // Sends that reached message-intake, whatever their outcome: each is a store transaction.
  const intakeUrl = wirehook.metricsUrls?.['message-intake'];
  if (intakeUrl === undefined) throw new Error("idempotency: needs cluster mode (message-intake's metrics)");
  const intakeCalls = () => readMetric(intakeUrl, 'wirehook_intake_messages_total');
  const callsBefore = await intakeCalls();
  const burstMs = new Samples();
  const sent: { tenant: Tenant; key: string }[] = [];
  let splitIds = 0;
  for (let b = 0; b < bursts; b++) {
    const { tenant, body } = sender.message(b);
    const key = `${prefix}-burst-${randomUUID()}`;
    sent.push({ tenant, key });
    const started = performance.now();
    const answered = await Promise.all(Array.from({ length: BURST }, () => sender.post(tenant, key, body)));
    burstMs.push(performance.now() - started);
    if (answered.includes(undefined) || new Set(answered).size !== 1) splitIds++;
  }
  const intakePerBurst = round(((await intakeCalls()) - callsBefore) / bursts, 1);
  let oneMessage = 0;
  for (const { tenant, key } of sent) {
    const listed = await api.expect(200, 'GET', `/v1/messages?q=${encodeURIComponent(key)}`, tenant.key);
    if (listed.items.length === 1) oneMessage++;
  }
  return { latency: burstMs.summary(), intakeCalls: intakePerBurst, keys: bursts, oneMessage, splitIds };
}

/** One run's record: the front-on figures in the usual fields, both settings in `extra`. */
function record(off: Phase, on: Phase): RunRecord {
  const r = emptyRecord();
  r.sent = off.sent + on.sent;
  r.accepted = off.accepted + on.accepted;
  for (const phase of [off, on]) for (const [status, n] of Object.entries(phase.rejected)) r.rejected[status] = (r.rejected[status] ?? 0) + n;
  r.seconds = on.replay.seconds;
  r.perSecond = on.replay.perSecond;
  r.intake = { perSecond: on.replay.perSecond, latencyMs: on.replay.latency };
  recordUsage(r, on.replay.usage, on.replay.replays);
  for (const [name, phase] of [
    ['off', off],
    ['on', on],
  ] as const) {
    const extra = {
      ReplaysPerSecond: phase.replay.perSecond,
      ReplayP50: phase.replay.latency?.p50,
      ReplayP99: phase.replay.latency?.p99,
      CpuUsPerReplay: phase.replay.cpuUs,
      BurstP50: phase.burst.latency?.p50,
      BurstP99: phase.burst.latency?.p99,
      IntakeCallsPerBurst: phase.burst.intakeCalls,
    };
    for (const [k, v] of Object.entries(extra)) if (typeof v === 'number') r.extra[`${name}${k}`] = round(v, 1);
  }
  r.extra['burstKeys'] = off.burst.keys + on.burst.keys;
  r.extra['burstKeysWithOneMessage'] = off.burst.oneMessage + on.burst.oneMessage;
  r.extra['burstsWithSplitIds'] = off.burst.splitIds + on.burst.splitIds;
  r.extra['replaysWithWrongId'] = off.replay.wrongIds + on.replay.wrongIds;
  return r;
}
