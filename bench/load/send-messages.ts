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
 * `targets[i mod targets.length]`. Never throws for an HTTP status; counts it.
 */
export async function sendMessages(api: WirehookApi, targets: Target[], from: number, count: number, concurrency: number): Promise<SendOutcome> {
  const out: SendOutcome = { sent: 0, accepted: 0, rejected: {}, deliveriesCreated: 0, latency: new Samples(), startedAt: nowMs(), finishedAt: 0 };
  await closedLoop(from, count, concurrency, async (i) => {
    const target = targets[i % targets.length]!;
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
  });
  out.finishedAt = nowMs();
  return out;
}
