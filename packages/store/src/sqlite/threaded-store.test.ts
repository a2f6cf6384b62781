import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock, newId, type ApiKey, type DeliveryId, type MessageId, type Tenant, newEventType } from '@wirehook/core';
import { afterAll, describe, expect, it } from 'vitest';
import { Fixtures } from '../../test/contract/fixtures.ts';
import { MessageFixtures } from '../../test/contract/message-fixtures.ts';
import type { DeliveryJob } from '../ports/delivery-port.ts';
import type { CreatedMessage } from '../ports/message-port.ts';
import type { Store } from '../store.ts';
import { withEchoedPayload, withoutEchoedPayload } from './echoed-payload.ts';
import { openSqliteReader, openSqliteStore } from './open-sqlite-store.ts';
import { StoreThread } from './store-thread.ts';
import { openThreadedSqliteStore, READS } from './threaded-store.ts';

// The threaded store's reader: a read-only connection on a thread of its own answers the
// calls in READS (every API request's), beside the writer's group commits.

const dir = mkdtempSync(join(tmpdir(), 'wirehook-store-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const clock = new ManualClock(Date.UTC(2026, 10, 26));

function keyOf(t: Tenant): ApiKey {
  return { id: newId('key', clock), orgId: t.orgId, env: 'live', scopes: ['messages:send'], createdAt: clock.now(), revokedAt: null, expiresAt: null };
}

/** A threaded store on a file of its own, with a tenant in it. */
async function threadedWithTenant(name: string): Promise<{ path: string; store: Store; tenant: Tenant }> {
  const path = join(dir, name);
  const store = openThreadedSqliteStore({ path });
  return { path, store, tenant: await new Fixtures(() => store, clock).tenant() };
}

/** One call per READS entry, with arguments that find something in the store `seed` made. */
interface Seeded {
  hash: string;
  tenant: Tenant;
  messageId: MessageId;
  deliveryId: DeliveryId;
}
const READ_CALLS: Record<string, (store: Store, seeded: Seeded) => Promise<unknown>> = {
  'apiKeys.findByHash': (store, { hash }) => store.apiKeys.findByHash(hash),
  'eventTypes.list': (store, { tenant }) => store.eventTypes.list(tenant),
  // The detail reads: bounded by the attempt paging, off the writer.
  'messages.get': (store, { tenant, messageId }) => store.messages.get(tenant, messageId),
  'deliveries.show': (store, { tenant, deliveryId }) => store.deliveries.show(tenant, deliveryId),
  'deliveries.attempts': (store, { tenant, deliveryId }) => store.deliveries.attempts(tenant, deliveryId, { limit: 50 }),
};

describe('what a SQLite store says of its writes', () => {
  it('groups them (one commit answers a moment’s writes together), threaded or not: a dispatcher refills sooner (DueSweep)', async () => {
    const threaded = openThreadedSqliteStore({ path: join(dir, 'groups-threaded') });
    const plain = openSqliteStore({ path: join(dir, 'groups-plain') });
    try {
      expect([threaded.groupsWrites, plain.groupsWrites]).toEqual([true, true]);
    } finally {
      await threaded.close();
      await plain.close();
    }
  });
});

describe('the threaded store’s reader', () => {
  it('answers every call READS sends it on a read-only connection, which refuses writes', async () => {
    const path = join(dir, 'read-only.sqlite');
    const writer = openSqliteStore({ path });
    const f = new Fixtures(() => writer, clock);
    const tenant = await f.tenant();
    const key = keyOf(tenant);
    await writer.apiKeys.create(key, 'hash-of-key');
    await writer.eventTypes.create(tenant, newEventType({ name: 'invoice.paid', description: null, archivedAt: null, createdAt: clock.now() }), 1_000);
    const m = new MessageFixtures(f);
    await m.hook(tenant, await f.consumer(tenant, 'customer-1'));
    const sent = await m.send(tenant);
    const seeded: Seeded = { hash: 'hash-of-key', tenant, messageId: sent.message.id, deliveryId: m.only(sent) };
    await writer.close();

    const reader = openSqliteReader(path);
    try {
      const routed = Object.entries(READS).flatMap(([repo, methods]) => [...methods!].map((m) => `${repo}.${m}`));
      // A call added to READS needs its line here: the reader must be able to answer it.
      expect(Object.keys(READ_CALLS).sort()).toEqual(routed.sort());
      for (const name of routed) await expect(READ_CALLS[name]!(reader, seeded), name).resolves.toBeTruthy();
      await expect(reader.apiKeys.revoke(key.id, clock.now())).rejects.toThrow(/readonly/);
    } finally {
      await reader.close();
    }
  });

  it('reads what a write wrote as soon as the write has settled, and its later changes', async () => {
    const store = openThreadedSqliteStore({ path: join(dir, 'threaded.sqlite') });
    try {
      const f = new Fixtures(() => store, clock);
      const tenant = await f.tenant();
      const key = keyOf(tenant);
      await store.apiKeys.create(key, 'hash-new');
      expect((await store.apiKeys.findByHash('hash-new'))?.key).toEqual(key);
      clock.advance(1_000);
      await store.apiKeys.revoke(key.id, clock.now());
      // A revoked key is refused from the next request on: the reader sees the revocation at once.
      expect((await store.apiKeys.findByHash('hash-new'))?.key.revokedAt).toBe(clock.now());
      const created = await store.eventTypes.create(
        tenant,
        newEventType({ name: 'order.shipped', description: 'shipped', archivedAt: null, createdAt: clock.now() }),
        1_000,
      );
      expect((await store.eventTypes.list(tenant)).map((e) => e.name)).toEqual([created.name]);
    } finally {
      await store.close();
    }
  });

  it('sends the READS calls to the read-only connection', async () => {
    // Routed there, a write fails: proof of where the reads' list sends a call.
    const store = openThreadedSqliteStore({ path: join(dir, 'routed.sqlite') }, { ...READS, apiKeys: new Set([...READS.apiKeys!, 'revoke']) });
    try {
      await expect(store.apiKeys.revoke(newId('key', clock), clock.now())).rejects.toThrow(/readonly/);
      // Everything else still goes to the writer.
      await expect(new Fixtures(() => store, clock).tenant()).resolves.toMatchObject({ env: 'live' });
    } finally {
      await store.close();
    }
  });

  it('closes with the write-ahead log folded into the database file', async () => {
    const { path, store, tenant } = await threadedWithTenant('checkpointed.sqlite');
    await store.eventTypes.create(tenant, newEventType({ name: 'user.created', description: null, archivedAt: null, createdAt: clock.now() }), 1_000);
    await store.eventTypes.list(tenant); // the reader is open, holding the file too
    await store.close();
    // A copy of the database file alone (a backup after a stop) has every commit.
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reopened = openSqliteStore({ path });
    expect((await reopened.eventTypes.list(tenant)).map((e) => e.name)).toEqual(['user.created']);
    await reopened.close();
  });

  it('answers the reads with the writer when the reader cannot run', async () => {
    const { path, store, tenant } = await threadedWithTenant('no-reader.sqlite');
    try {
      const key = keyOf(tenant);
      await store.apiKeys.create(key, 'hash-kept');
      // The writer keeps its open file; the reader, started by the first read, finds none to open.
      renameSync(path, `${path}.moved`);
      expect((await store.apiKeys.findByHash('hash-kept'))?.key).toEqual(key);
      expect(await store.eventTypes.list(tenant)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('closes the writer even when the reader fails while closing', async () => {
    const { path, store, tenant } = await threadedWithTenant('reader-fails-at-close.sqlite');
    renameSync(path, `${path}.moved`);
    // The read starts the reader, which cannot open the file, as the store closes.
    const read = store.eventTypes.list(tenant).catch((err: unknown) => err);
    await store.close();
    await read;
    await expect(
      store.eventTypes.create(tenant, newEventType({ name: 'too.late', description: null, archivedAt: null, createdAt: clock.now() }), 1_000),
    ).rejects.toThrow(/closed/);
  });

  it('refuses calls once closed, readers and writers alike', async () => {
    const store = openThreadedSqliteStore({ path: join(dir, 'closed.sqlite') });
    await store.close();
    await expect(store.apiKeys.findByHash('any')).rejects.toThrow(/closed/);
    await expect(store.orgs.get('org_none' as never)).rejects.toThrow(/closed/);
  });
});

describe('a created message’s payload through the threaded store', () => {
  const send = (payload: string, idempotencyKey: string | null) => {
    clock.advance(1);
    const createdAt = clock.now();
    return {
      id: newId('message', { now: () => createdAt }),
      eventType: 'invoice.paid',
      payload,
      createdAt,
      consumerExternalId: 'customer-1',
      newConsumerId: newId('consumer', clock),
      idempotencyKey,
      idempotencySince: createdAt - 86_400_000,
      counters: [],
      claim: { max: 10, leaseUntil: createdAt + 60_000 },
    };
  };

  it('comes back as sent, in the message and each claimed job, and a replay answers the earlier message’s own', async () => {
    const { store, tenant } = await threadedWithTenant('echoed-payload.sqlite');
    try {
      const f = new Fixtures(() => store, clock);
      const consumer = await f.consumer(tenant);
      for (let e = 0; e < 3; e++) await f.createEndpoint(tenant, consumer.id);
      const payload = JSON.stringify({ n: 1, pad: 'x'.repeat(2_000) });
      const created = await store.messages.create(tenant, send(payload, 'key-1'));
      expect(created.created).toBe(true);
      expect(created.message.payload).toBe(payload);
      expect(created.claimed?.map((job) => job.message.payload)).toEqual([payload, payload, payload]);
      // The store holds it whole: what the caller's side put back is what was written.
      expect((await store.messages.get(tenant, created.message.id))?.message.payload).toBe(payload);
      const replay = await store.messages.create(tenant, send('{"n":2}', 'key-1'));
      expect(replay).toMatchObject({ created: false, message: { id: created.message.id, payload } });
    } finally {
      await store.close();
    }
  });

  it('does not cross back from the writer’s thread: its raw answer carries none', async () => {
    const { path, store, tenant } = await threadedWithTenant('echoed-raw.sqlite');
    try {
      const f = new Fixtures(() => store, clock);
      await f.createEndpoint(tenant, (await f.consumer(tenant)).id);
    } finally {
      await store.close();
    }
    // The writer's thread as the threaded store talks to it, without the caller's side.
    const thread = new StoreThread(path, 'writer');
    try {
      const payload = '{"raw":true}';
      const raw = (await thread.send({ repo: 'messages', method: 'create', args: [tenant, send(payload, null)] })) as CreatedMessage;
      expect(raw.created).toBe(true);
      expect([raw.message.payload, ...(raw.claimed ?? []).map((job) => job.message.payload)]).toEqual(['', '']);
    } finally {
      await thread.close(new Error('closed'));
    }
  });

  it('is left out of the created message’s answer on the store thread’s side, and only there', () => {
    const call = { id: 1, repo: 'messages', method: 'create', args: [{}, { payload: '{"sent":true}' }] };
    const answer = () => ({
      created: true,
      message: { id: 'msg_1', payload: '{"sent":true}' },
      claimed: [{ message: { payload: '{"sent":true}' } }],
    });
    const stripped = withoutEchoedPayload(call, answer()) as ReturnType<typeof answer>;
    expect([stripped.message.payload, stripped.claimed[0]!.message.payload]).toEqual(['', '']);
    const restored = withEchoedPayload(call, stripped) as ReturnType<typeof answer>;
    expect([restored.message.payload, restored.claimed[0]!.message.payload]).toEqual(['{"sent":true}', '{"sent":true}']);
    // A replay's answer is the earlier message: kept as it is, both ways.
    const replay = { created: false, message: { id: 'msg_0', payload: '{"earlier":true}' } };
    expect(withoutEchoedPayload(call, replay)).toEqual({ created: false, message: { id: 'msg_0', payload: '{"earlier":true}' } });
    expect(withEchoedPayload(call, replay)).toEqual({ created: false, message: { id: 'msg_0', payload: '{"earlier":true}' } });
    // Another call's answer is never touched.
    const other = { ...call, method: 'get' };
    expect((withoutEchoedPayload(other, answer()) as ReturnType<typeof answer>).message.payload).toBe('{"sent":true}');
  });
});

describe('a claimed job’s endpoint through the threaded store', () => {
  const claiming = () => ({ claim: { max: 10, leaseUntil: clock.now() + 60_000 } });

  it('crosses the writer’s thread whole only while it changes: its raw answers leave it out once sent', async () => {
    const { path, store, tenant } = await threadedWithTenant('job-endpoint-raw.sqlite');
    let message: ReturnType<MessageFixtures['newMessage']>;
    try {
      const f = new Fixtures(() => store, clock);
      const m = new MessageFixtures(f);
      await m.hook(tenant, await f.consumer(tenant, 'customer-1'));
      clock.advance(1);
      message = m.newMessage(claiming());
    } finally {
      await store.close();
    }
    // The writer's thread as the threaded store talks to it, without the caller's side.
    const thread = new StoreThread(path, 'writer');
    const create = async () => {
      clock.advance(1);
      const fresh = { ...message, id: newId('message', clock), createdAt: clock.now() };
      return (await thread.send({ repo: 'messages', method: 'create', args: [tenant, fresh] })) as CreatedMessage;
    };
    try {
      const first = (await create()).claimed![0]!;
      expect(first.endpoint.url).toMatch(/^https:/);
      expect(first.secrets).toHaveLength(1);
      const second = (await create()).claimed![0]!;
      expect(second.delivery.endpointId).toBe(first.delivery.endpointId);
      expect([second.endpoint, second.secrets]).toEqual([undefined, undefined]);
    } finally {
      await thread.close(new Error('closed'));
    }
  });

  it('is put back whole for each job, and a changed endpoint reaches the next job at once', async () => {
    const { store, tenant } = await threadedWithTenant('job-endpoint-put-back.sqlite');
    try {
      const f = new Fixtures(() => store, clock);
      const m = new MessageFixtures(f);
      const endpoint = await m.hook(tenant, await f.consumer(tenant, 'customer-1'));
      const jobOf = async () => {
        clock.advance(1);
        return (await m.send(tenant, claiming())).claimed![0]!;
      };
      const first = await jobOf();
      const second = await jobOf();
      // Put back: the very objects the first job brought, shared and frozen.
      expect(second.endpoint).toBe(first.endpoint);
      expect(second.secrets).toBe(first.secrets);
      expect(Object.isFrozen(second.endpoint)).toBe(true);
      await store.endpoints.update(tenant, endpoint.id, { url: 'https://moved.example/hook' });
      const moved = await jobOf();
      expect(moved.endpoint).not.toBe(first.endpoint);
      expect(moved.endpoint.url).toBe('https://moved.example/hook');
      // Claimed again later (claimMany, as a dispatcher's sweep claims): the moved endpoint, put back.
      clock.advance(1);
      const sent = await m.send(tenant);
      const [again] = await store.deliveries.claimMany!(sent.deliveryIds, clock.now(), clock.now() + 60_000);
      expect((again as DeliveryJob).endpoint.url).toBe('https://moved.example/hook');
      expect((again as DeliveryJob).secrets).toEqual(first.secrets);
    } finally {
      await store.close();
    }
  });
});

describe('claims made together through the threaded store', () => {
  it('carry each message’s payload once: the jobs of one message share one message object', async () => {
    const { store, tenant } = await threadedWithTenant('claim-many.sqlite');
    try {
      const f = new Fixtures(() => store, clock);
      const m = new MessageFixtures(f);
      const consumer = await f.consumer(tenant, 'customer-1');
      for (let e = 0; e < 3; e++) await f.createEndpoint(tenant, consumer.id);
      clock.advance(1);
      const fanOut = await m.send(tenant, { payload: JSON.stringify({ pad: 'x'.repeat(2_000) }) });
      clock.advance(1);
      const other = await m.send(tenant);
      const now = clock.now();
      const jobs = await store.deliveries.claimMany!([...fanOut.deliveryIds, ...other.deliveryIds], now, now + 60_000);
      const [a, b, c, d] = jobs.map((job) => {
        if (job === null) throw new Error('every delivery should be claimable');
        return job;
      }) as [DeliveryJob, DeliveryJob, DeliveryJob, DeliveryJob];
      // One object across the thread: the structured clone copied the payload once, not three times.
      expect(a.message).toBe(b.message);
      expect(b.message).toBe(c.message);
      expect(a.message.payload).toBe(fanOut.message.payload);
      expect(d.message).not.toBe(a.message);
      expect(d.message.id).toBe(other.message.id);
      expect(new Set([a, b, c].map((job) => job.endpoint.id)).size).toBe(3);
    } finally {
      await store.close();
    }
  });
  it('fail one by one: a job that cannot be built is answered failed, left due, and the others are claimed', async () => {
    const path = join(dir, 'claim-many-failed.sqlite');
    const store = openSqliteStore({ path });
    try {
      const f = new Fixtures(() => store, clock);
      const tenant = await f.tenant();
      const consumer = await f.consumer(tenant, 'customer-1');
      const [good, bad] = [await f.createEndpoint(tenant, consumer.id), await f.createEndpoint(tenant, consumer.id)];
      clock.advance(1);
      const sent = await new MessageFixtures(f).send(tenant);
      // The second endpoint's row no longer reads back (a column that is not JSON any more).
      const raw = new DatabaseSync(path);
      raw.prepare('UPDATE endpoints SET retry = ? WHERE id = ?').run('{not json', bad.id);
      raw.close();
      const now = clock.now();
      const byEndpoint = new Map(
        (await Promise.all(sent.deliveryIds.map((id) => store.deliveries.get(tenant, id)))).map((d) => [d!.delivery.endpointId, d!.delivery.id]),
      );
      const ids = [byEndpoint.get(bad.id)!, byEndpoint.get(good.id)!];
      const [failed, claimed] = await store.deliveries.claimMany!(ids, now, now + 60_000);
      expect(failed).toEqual({ failed: expect.any(String) });
      expect(claimed && 'delivery' in claimed ? claimed.delivery.id : claimed).toBe(ids[1]);
      // Its lease given back: due now, for the sweep (and a fixed row) to take.
      expect((await store.deliveries.due(now, 10, 10)).map((d) => d.id)).toEqual([ids[0]]);
    } finally {
      await store.close();
    }
  });
});
