// AttemptRecorder against a real (SQLite) store: an attempt's outcome is written, counted
// and logged; a stale lease keeps the newer state; a write that fails leaves it to the lease.
import { silentLogger, type Logger } from '@wirehook/platform';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AttemptRecorder } from './attempt-recorder.ts';
import type { DeliveryJob } from '@wirehook/store';
import { DeliveryLeases } from './delivery-leases.ts';
import { DispatchScene, OK, recordingLogger } from './testing/dispatch-scene.ts';

const LEASE_MS = 17_000;
let s: DispatchScene;

beforeEach(() => {
  s = new DispatchScene();
});
afterEach(() => s.close());

function recorder(logger: Logger = silentLogger()): AttemptRecorder {
  const leases = new DeliveryLeases({ store: s.store, clock: s.clock, logger, metrics: s.metrics, leaseMs: LEASE_MS });
  const hold = (job: DeliveryJob, until: number) => s.store.endpoints.hold(job.tenant, job.endpoint.id, until);
  return new AttemptRecorder({ leases, clock: s.clock, logger, metrics: s.metrics, hold });
}

async function claimed() {
  const { t } = await s.endpoint();
  const [id] = await s.due(t);
  return { t, id: id!, job: await s.claim(id!) };
}

describe('AttemptRecorder: a receiver asking to be slowed down', () => {
  const answer = (status: number, retryAfter: string | null) => ({
    ok: false,
    status,
    responseHead: '',
    error: `http_status: ${status}`,
    durationMs: 5,
    sourceIp: null,
    retryAfter,
  });

  it('a 429 with Retry-After: 3600 holds the endpoint an hour, puts the next attempt there (the policy says 30 min), starts no failure streak', async () => {
    const { t, id, job } = await claimed();
    const at = s.clock.now();
    await recorder().record(job, answer(429, '3600'), at);
    const endpoint = await s.store.endpoints.get(t, job.endpoint.id);
    expect(endpoint).toMatchObject({ heldUntil: at + 3_600_000, failingSince: null, status: 'active' });
    expect((await s.store.deliveries.get(t, id))?.delivery).toMatchObject({ status: 'retrying', nextAttemptAt: at + 3_600_000 });
  });

  it('a Retry-After shorter than the policy: the policy’s time stands', async () => {
    const { t, id, job } = await claimed();
    const at = s.clock.now();
    await recorder().record(job, answer(503, '120'), at);
    expect((await s.store.endpoints.get(t, job.endpoint.id))?.heldUntil).toBe(at + 120_000);
    expect((await s.store.deliveries.get(t, id))?.delivery).toMatchObject({ status: 'retrying', nextAttemptAt: at + 30 * 60_000 });
  });

  it('a 503 without Retry-After holds nothing: the policy’s time, and the streak starts', async () => {
    const { t, job } = await claimed();
    const at = s.clock.now();
    await recorder().record(job, answer(503, null), at);
    expect(await s.store.endpoints.get(t, job.endpoint.id)).toMatchObject({ heldUntil: null, failingSince: at });
  });
});

describe('AttemptRecorder', () => {
  it('a 2xx: success written, counted by outcome and via, logged at debug', async () => {
    const { t, id, job } = await claimed();
    const { logger, lines } = recordingLogger();
    await recorder(logger).record(job, OK, s.clock.now());
    expect(await s.statusOf(t, id)).toBe('success');
    expect(await s.metric('wirehook_delivery_attempts_total', { outcome: 'success', via: 'direct' })).toBe(1);
    expect(lines.map((l) => [l['level'], l['msg']])).toEqual([[20, 'delivered']]);
  });

  it('a 503: retrying at the policy’s next time, logged at info', async () => {
    const { t, id, job } = await claimed();
    const { logger, lines } = recordingLogger();
    const at = s.clock.now();
    await recorder(logger).record(job, { ...OK, ok: false, status: 503 }, at);
    expect((await s.store.deliveries.get(t, id))?.delivery).toMatchObject({ status: 'retrying', attemptCount: 1 });
    expect(await s.metric('wirehook_delivery_attempts_total', { outcome: 'http_5xx', via: 'direct' })).toBe(1);
    expect(lines.map((l) => [l['level'], l['msg'], l['responseStatus']])).toEqual([[30, 'attempt failed; retrying', 503]]);
  });

  it('a lease that ran out and was claimed again: the attempt is kept, the newer state stands, counted as stale', async () => {
    const { t, id, job } = await claimed();
    s.clock.advance(LEASE_MS);
    await s.claim(id);
    await recorder().record(job, OK, s.clock.now());
    expect((await s.store.deliveries.get(t, id))?.delivery).toMatchObject({ status: 'pending', attemptCount: 1 });
    expect(await s.metric('wirehook_dispatch_stale_completions_total')).toBe(1);
  });

  it('a write that fails: counted as a store error, nothing observed, the delivery still leased', async () => {
    const { t, id, job } = await claimed();
    s.store.deliveries.complete = () => Promise.reject(new Error('database is locked'));
    await recorder().record(job, OK, s.clock.now());
    expect(await s.statusOf(t, id)).toBe('pending');
    expect(await s.metric('wirehook_dispatch_store_errors_total', { operation: 'complete' })).toBe(1);
    expect(await s.registry.getSingleMetricAsString('wirehook_delivery_attempt_duration_seconds')).toContain(
      'wirehook_delivery_attempt_duration_seconds_count 0',
    );
  });
});

describe('AttemptRecorder: an ordered lane', () => {
  it('wakes the lane’s next with its tenant when the head ends (a held tenant’s next is not claimed: TenantHolds)', async () => {
    const { t } = await s.endpoint({ ordering: 'key' });
    const head = s.m.only(await s.m.send(t, { consumerExternalId: 'customer-1', orderingKey: 'order-1' }));
    const next = s.m.only(await s.m.send(t, { consumerExternalId: 'customer-1', orderingKey: 'order-1' }));
    const woken: unknown[] = [];
    const leases = new DeliveryLeases({ store: s.store, clock: s.clock, logger: silentLogger(), metrics: s.metrics, leaseMs: LEASE_MS });
    const hold = (job: DeliveryJob, until: number) => s.store.endpoints.hold(job.tenant, job.endpoint.id, until);
    const wake = (id: unknown, tenant: unknown) => woken.push([id, tenant]);
    const r = new AttemptRecorder({ leases, clock: s.clock, logger: silentLogger(), metrics: s.metrics, hold, wake });
    await r.record(await s.claim(head), OK, s.clock.now());
    expect(woken).toEqual([[next, t]]);
  });
});
