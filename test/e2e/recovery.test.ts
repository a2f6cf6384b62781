// Recovery through the public API, in embedded mode: the snapshot of failed deliveries,
// re-sent once each with their webhook-id, 50 every 10 s by the clock (moved, not slept),
// `done`; a pause ends it `stopped`; the 409/422 cases; a worker that dies mid-way is
// replaced by another after its lease, and nothing goes twice.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@wirehook/testkit';
import { RecoveryWorker } from '@wirehook/recovery';
import { silentLogger } from '@wirehook/platform';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { type NamedReceiver, reachingReceivers, startReceiver } from '../support/receivers.ts';

let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;

beforeAll(async () => {
  wh = await startWirehook(await reachingReceivers());
  t = await wh.tenant();
  rx = await startReceiver();
});
afterEach(() => {
  rx.receiver.respondWith({});
  rx.receiver.clear();
});
afterAll(async () => {
  await wh.close();
  await rx.receiver.close();
});

let seq = 0;
/** An endpoint that gives up after one failed send (retry count 0), on a consumer of its own. */
async function endpoint(): Promise<{ consumer: string; id: string }> {
  const consumer = `rcv-${++seq}`;
  const consumerId = (await t.api.post('/v1/consumers', { external_id: consumer })).body.id;
  const res = await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), retry: { count: 0, interval: '1m' } });
  expect(res.status).toBe(201);
  return { consumer, id: res.body.id };
}

/** Sends `n` messages while the receiver answers 503; resolves once all have failed. */
async function failed(consumer: string, n: number): Promise<string[]> {
  rx.receiver.respondWith({ status: 503 });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await t.api.post('/v1/messages', { consumer, event_type: 'order.created', payload: { i } })).body.id);
  await eventually(async () => {
    for (const id of ids) expect((await t.api.get(`/v1/messages/${id}`)).body.status).toBe('failed');
  }, 30_000);
  rx.receiver.respondWith({});
  rx.receiver.clear();
  return ids;
}

const received = (ids: readonly string[]) => rx.receiver.requests.filter((r) => ids.includes(r.headers['webhook-id']!));
const recovery = async (endpointId: string, id: string) => (await t.api.get(`/v1/endpoints/${endpointId}/recoveries/${id}`)).body;
const tick = () => wh.embedded.recoveryWorker.tick();
/**
 * Nothing was queued: once the tick has returned, each of `waiting` is still in the store with
 * `status` (a step queues its batch in its own transaction, so a queued one would be
 * `retrying` by now, and only a due delivery is ever sent), and of `ids` the receiver has only
 * the `sent` it had. No sleep: the store says what the tick did.
 */
const nothingQueued = async (waiting: readonly string[], ids: readonly string[], sent: number, status = 'failed') => {
  const statuses = await Promise.all(waiting.map(async (id) => (await t.api.get(`/v1/messages/${id}`)).body.status));
  expect(new Set(statuses)).toEqual(new Set([status]));
  expect(received(ids)).toHaveLength(sent);
};
/** Until the deliveries sent so far are written back (their endpoint's slots are free again). */
const settled = (ids: readonly string[]) =>
  eventually(async () => {
    for (const id of ids) expect(['success', 'failed']).toContain((await t.api.get(`/v1/messages/${id}`)).body.status);
  }, 30_000);

describe('POST /v1/endpoints/{id}/recover', () => {
  it('re-sends each of 120 failed deliveries once, with its webhook-id, 50 every 10 s, then done', async () => {
    const ep = await endpoint();
    const older = await failed(ep.consumer, 1);
    wh.clock.advance(1_000);
    const since = wh.clock.now();
    const ids = await failed(ep.consumer, 120);
    wh.clock.advance(1); // `since` must be before now

    const started = await t.api.post(`/v1/endpoints/${ep.id}/recover`, { since });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({
      id: expect.stringMatching(/^rcv_/),
      endpoint_id: ep.id,
      since,
      status: 'running',
      total: 120,
      queued: 0,
      created_at: wh.clock.now(),
      finished_at: null,
    });
    const rid = started.body.id as string;
    // The endpoint shows its latest recovery (the worker's own timer may have queued the first batch already).
    expect((await t.api.get(`/v1/endpoints/${ep.id}`)).body.recovery).toMatchObject({ id: started.body.id, status: 'running', total: 120 });

    await tick();
    await eventually(() => expect(received(ids)).toHaveLength(50));
    const first50 = ids.slice(0, 50);
    expect(new Set(received(ids).map((r) => r.headers['webhook-id']))).toEqual(new Set(first50)); // oldest first
    await settled(first50);
    expect(await recovery(ep.id, rid)).toMatchObject({ status: 'running', queued: 50 });

    wh.clock.advance(9_999);
    await tick();
    await nothingQueued(ids.slice(50), ids, 50); // the 51st waits for its 10 s
    expect(await recovery(ep.id, rid)).toMatchObject({ status: 'running', queued: 50 });
    wh.clock.advance(1);
    await tick();
    await eventually(() => expect(received(ids)).toHaveLength(100));
    await settled(ids.slice(0, 100));
    wh.clock.advance(10_000);
    await tick();
    await eventually(() => expect(received(ids)).toHaveLength(120));
    await settled(ids);

    const done = await recovery(ep.id, rid);
    expect(done).toMatchObject({ status: 'done', total: 120, queued: 120, finished_at: wh.clock.now() });
    expect(received(older)).toHaveLength(0); // created before since
    for (const id of ids) expect(received([id])).toHaveLength(1);
    for (const id of ids) expect((await t.api.get(`/v1/messages/${id}`)).body.status).toBe('success');
    // Not counted as usage: nothing about the month's count changed by re-sends (only new messages count).
    wh.clock.advance(10_000);
    await tick();
    expect(received(ids)).toHaveLength(120);
  }, 120_000);

  it('a pause mid-way ends it stopped, with queued < total, and nothing more is sent', async () => {
    const ep = await endpoint();
    const ids = await failed(ep.consumer, 60);
    const rid = (await t.api.post(`/v1/endpoints/${ep.id}/recover`, { since: wh.clock.now() - 60_000 })).body.id;
    await tick();
    await eventually(() => expect(received(ids)).toHaveLength(50));
    expect((await t.api.patch(`/v1/endpoints/${ep.id}`, { status: 'paused' })).status).toBe(200);
    const stopped = await recovery(ep.id, rid);
    expect(stopped).toMatchObject({ status: 'stopped', total: 60, queued: 50, finished_at: wh.clock.now() });
    wh.clock.advance(10_000);
    await tick();
    await nothingQueued(ids.slice(50), ids, 50);
    expect(await recovery(ep.id, rid)).toEqual(stopped);
  }, 60_000);

  it('409 when the endpoint is not active or one already runs (two at once: one 202, one 409); 422 for since; 404s; scope', async () => {
    const ep = await endpoint();
    await failed(ep.consumer, 2);
    const since = wh.clock.now() - 60_000;
    const [a, b] = await Promise.all([t.api.post(`/v1/endpoints/${ep.id}/recover`, { since }), t.api.post(`/v1/endpoints/${ep.id}/recover`, { since })]);
    expect([a.status, b.status].sort()).toEqual([202, 409]);
    expect([a, b].find((r) => r.status === 409)!.body).toEqual({ error: 'conflict', message: expect.stringContaining('already running') });

    const paused = await endpoint();
    await t.api.patch(`/v1/endpoints/${paused.id}`, { status: 'paused' });
    expect((await t.api.post(`/v1/endpoints/${paused.id}/recover`, { since })).body).toEqual({ error: 'conflict', message: expect.stringContaining('paused') });

    const other = await endpoint();
    const cases: [unknown, RegExp][] = [
      [{}, /since/],
      [{ since: 'yesterday' }, /since/],
      [{ since: wh.clock.now() + 60_000 }, /since: must be before now/],
      [{ since: wh.clock.now() }, /since: must be before now/],
      [{ since: 0 }, /since: must lie inside the retention period/],
    ];
    for (const [body, message] of cases) {
      const res = await t.api.post(`/v1/endpoints/${other.id}/recover`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.message).toMatch(message);
    }
    expect((await t.api.post('/v1/endpoints/ep_01KAAAAAAAAAAAAAAAAAAAAAAA/recover', { since })).status).toBe(404);
    const rid = (a.status === 202 ? a : b).body.id;
    expect((await t.api.get(`/v1/endpoints/${other.id}/recoveries/${rid}`)).status).toBe(404); // another endpoint's
    expect((await t.api.get(`/v1/endpoints/${ep.id}/recoveries/rcv_nope`)).status).toBe(404);

    const reader = await wh.key(t.orgId, { scopes: ['logs:read'] });
    expect((await reader.api.post(`/v1/endpoints/${other.id}/recover`, { since })).status).toBe(403);
    expect((await reader.api.get(`/v1/endpoints/${ep.id}/recoveries/${rid}`)).status).toBe(200);
  }, 60_000);

  it('a worker that dies mid-way is replaced after its lease: the rest goes once, nothing twice', async () => {
    const ep = await endpoint();
    const ids = await failed(ep.consumer, 80);
    // The embedded worker is "dead": it is never ticked again and its timer is stopped.
    await wh.embedded.recoveryWorker.stop();
    // Workers sharing the embedded store with the dead one (no lease freed at start).
    const worker = () =>
      new RecoveryWorker({
        store: wh.store,
        bus: wh.embedded.bus,
        clock: wh.clock,
        logger: silentLogger(),
        endpointSlots: 16,
        releaseLeasesAtStart: false,
      });
    const dying = worker();
    const rid = (await t.api.post(`/v1/endpoints/${ep.id}/recover`, { since: wh.clock.now() - 60_000 })).body.id;
    await dying.tick();
    await eventually(() => expect(received(ids)).toHaveLength(50));
    await settled(ids.slice(0, 50));

    const heir = worker();
    wh.clock.advance(10_000);
    await heir.tick(); // the lease (a minute) is still the dead worker's
    await nothingQueued(ids.slice(50), ids, 50);
    wh.clock.advance(60_000);
    await heir.tick();
    await eventually(() => expect(received(ids)).toHaveLength(80));
    await settled(ids);
    // The dead one wakes up: its lease is gone, it writes nothing.
    await dying.tick();
    await nothingQueued(ids, ids, 80, 'success');
    for (const id of ids) expect(received([id])).toHaveLength(1);
    expect(await recovery(ep.id, rid)).toMatchObject({ status: 'done', queued: 80 });
  }, 60_000);
});
