// The largest delivery history the API lets a caller make (issue 40): one delivery with the
// 100 attempts manual retries can bring it to, made from outside as a hostile caller would —
// its endpoint's route answers 500, retries are off, and each manual retry waits for its send.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchContext } from '../context.ts';
import type { Tenant } from './tenants.ts';
import { buildTopology } from './topology.ts';

/** The spec's cap: manual retries stop a delivery at 100 attempts (409 beyond). */
export const HISTORY_ATTEMPTS = 100;

/** The delivery with the full history, its message, and the cursor to the attempts older than the 20 it shows. */
export interface AttemptHistory {
  messageId: string;
  deliveryId: string;
  olderCursor: string;
}

/** Makes the history on `tenant` (one consumer and endpoint named `name`); throws unless the API stops it at the cap with 409. */
export async function makeAttemptHistory(ctx: BenchContext, tenant: Tenant, name: string): Promise<AttemptHistory> {
  const { api, receiver } = ctx;
  const { targets, endpoints } = await buildTopology({ ...ctx, tenants: [tenant] }, { name, consumers: 1, endpointsPerConsumer: 1, group: () => name });
  const endpoint = endpoints[0]!;
  await receiver.setMode([endpoint.route], 'fail');
  // No automatic retries: every attempt after the first is a manual retry's.
  await api.expect(200, 'PATCH', `/v1/endpoints/${endpoint.id}`, tenant.key, { retry: { count: 0, interval: '1m' } });
  const sent = await api.expect(202, 'POST', '/v1/messages', tenant.key, targets[0]!.body);
  const messageId = String(sent.id);
  const deliveryId = String((await api.expect(200, 'GET', `/v1/messages/${messageId}`, tenant.key)).deliveries[0].id);
  await attempted(ctx, tenant, deliveryId, 1);
  for (let n = 2; n <= HISTORY_ATTEMPTS; n++) {
    await api.expect(202, 'POST', `/v1/deliveries/${deliveryId}/retry`, tenant.key);
    await attempted(ctx, tenant, deliveryId, n);
  }
  const refused = await api.call('POST', `/v1/deliveries/${deliveryId}/retry`, tenant.key);
  if (refused.status !== 409) throw new Error(`retry beyond ${HISTORY_ATTEMPTS} attempts: expected 409, got ${refused.status} ${JSON.stringify(refused.body)}`);
  const delivery = await api.expect(200, 'GET', `/v1/deliveries/${deliveryId}`, tenant.key);
  return { messageId, deliveryId, olderCursor: String(delivery.attempts_next_cursor) };
}

/** Polls the delivery until its `n`-th attempt is recorded and it is no longer being sent. */
async function attempted(ctx: BenchContext, tenant: Tenant, deliveryId: string, n: number): Promise<void> {
  const deadline = Date.now() + ctx.settings.waitMs;
  for (;;) {
    const d = await ctx.api.expect(200, 'GET', `/v1/deliveries/${deliveryId}`, tenant.key);
    if (d.attempt_count >= n && d.status === 'failed') return;
    if (Date.now() > deadline) throw new Error(`delivery ${deliveryId}: attempt ${n} not recorded within ${ctx.settings.waitMs} ms (${JSON.stringify(d)})`);
    await sleep(5);
  }
}
