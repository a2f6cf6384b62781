import type { WirehookApi } from '../http/wirehook-api.ts';
import { Samples } from '../report/stats.ts';
import type { Target } from '../setup/topology.ts';
import { closedLoop } from './closed-loop.ts';

/** What a burst of POST /v1/messages got. */
export interface SendOutcome {
  sent: number;
  /** 202s. */
  accepted: number;
  /** Other answers by status (a 429 means the bench needs more orgs). */
  rejected: Record<string, number>;
  /** Sum of the 202s' `deliveries`. */
  deliveriesCreated: number;
  /** Per-request latency, ms, of the 202s. */
  latency: Samples;
  /** Unix ms (sub-ms precision) when the first request went and when the last 202 came back. */
  startedAt: number;
  finishedAt: number;
}

export const nowMs = (): number => performance.timeOrigin + performance.now();

/**
 * POSTs messages `from` … `from + count − 1` at `concurrency`, message i to
 * `targets[i mod targets.length]`. Never throws for an HTTP status; counts it, in `out` as it
 * goes (given one, a caller can watch the counts while the send runs).
 */
export async function sendMessages(
  api: WirehookApi,
  targets: Target[],
  from: number,
  count: number,
  concurrency: number,
  out: SendOutcome = emptyOutcome(),
): Promise<SendOutcome> {
  out.startedAt = nowMs();
  await closedLoop(from, count, concurrency, (i) => sendOne(api, targets[i % targets.length]!, out));
  out.finishedAt = nowMs();
  return out;
}

/**
 * Like sendMessages, but open loop: message k goes at `start + k / perSecond` whether or not
 * earlier ones were answered (at most `maxInFlight` at once), so latency is measured at a
 * load the system can take rather than at saturation.
 */
export async function sendPaced(
  api: WirehookApi,
  targets: Target[],
  from: number,
  count: number,
  perSecond: number,
  maxInFlight: number,
): Promise<SendOutcome> {
  const out = emptyOutcome();
  const start = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let k = 0; k < count; k++) {
    const wait = start + (k * 1000) / perSecond - performance.now();
    if (wait >= 1) await new Promise((resolve) => setTimeout(resolve, wait));
    while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
    const sending: Promise<void> = sendOne(api, targets[(from + k) % targets.length]!, out).finally(() => inFlight.delete(sending));
    inFlight.add(sending);
  }
  await Promise.all(inFlight);
  out.finishedAt = nowMs();
  return out;
}

/** A send's counts before its first request (its start is now). */
export function emptyOutcome(): SendOutcome {
  return { sent: 0, accepted: 0, rejected: {}, deliveriesCreated: 0, latency: new Samples(), startedAt: nowMs(), finishedAt: 0 };
}

async function sendOne(api: WirehookApi, target: Target, out: SendOutcome): Promise<void> {
  const started = performance.now();
  out.sent++;
  const reply = await api.call('POST', '/v1/messages', target.tenant.key, target.body);
  if (reply.status === 202) {
    out.latency.push(performance.now() - started);
    out.accepted++;
    out.deliveriesCreated += Number(reply.body.deliveries);
  } else {
    out.rejected[reply.status] = (out.rejected[reply.status] ?? 0) + 1;
  }
}
