import { RECEIVER_TEST_HOST, TestReceiver, closedPort } from '@wirehook/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EgressThread, type EgressThreadOptions } from './egress-thread.ts';

const HEADERS = { 'content-type': 'application/json', 'webhook-id': 'msg_thread' };
const BODY = '{"type":"invoice.paid","data":{"note":"café ☕"}}';

let receiver: TestReceiver;
const threads: EgressThread[] = [];

function thread(options: Partial<EgressThreadOptions> = {}, workerUrl?: URL): EgressThread {
  const created = new EgressThread(
    { allowHosts: 'localhost', resolve: '', timeoutMs: 15_000, connectionsPerOrigin: 16, ca: receiver.caPem, ...options },
    workerUrl,
  );
  threads.push(created);
  return created;
}

beforeAll(async () => {
  receiver = await TestReceiver.start();
});
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.clear();
  receiver.respondWith({});
});
afterEach(async () => {
  await Promise.all(threads.splice(0).map((t) => t.close()));
});

describe('EgressThread: HttpEgress on a thread of its own', () => {
  it('sends the POST as given and answers with its result, every send on one thread', async () => {
    receiver.respondWith({ status: 202, body: 'taken', headers: { 'retry-after': '7' } });
    const egress = thread();
    const results = await Promise.all([1, 2, 3].map((n) => egress.send({ url: `${receiver.url}/in/${n}`, poolKey: 'ep_1', headers: HEADERS, body: BODY })));
    for (const result of results) {
      expect(result).toMatchObject({ ok: true, status: 202, responseHead: 'taken', error: null, sourceIp: '127.0.0.1', retryAfter: '7' });
    }
    expect(receiver.requests.map((r) => r.path).sort()).toEqual(['/in/1', '/in/2', '/in/3']);
    expect(receiver.requests[0]!.body).toBe(BODY);
    expect(receiver.requests[0]!.headers).toMatchObject(HEADERS);
    expect(egress.starts).toBe(1);
    expect(egress.threadId).toBeGreaterThan(0);
  });

  it('keeps its failures as data: the address rules, refused connections, DELIVERY_RESOLVE', async () => {
    // Without localhost allowed, the thread's own AddressPolicy blocks the loopback address.
    const strict = thread({ allowHosts: '' });
    const blocked = await strict.send({ url: receiver.url, headers: HEADERS, body: BODY });
    expect(blocked).toMatchObject({ ok: false, status: null });
    expect(blocked.error).toMatch(/^blocked: host "localhost" resolves to/);
    const refused = await thread().send({ url: `https://localhost:${await closedPort()}/`, headers: HEADERS, body: BODY });
    expect(refused).toMatchObject({ ok: false, status: null });
    expect(refused.error).toMatch(/^connection: /);
    // A name only DELIVERY_RESOLVE knows reaches the receiver: the overrides crossed to the thread.
    const named = `hooks.${RECEIVER_TEST_HOST}`;
    const resolved = thread({ allowHosts: named, resolve: `${named}:127.0.0.1` });
    const sent = await resolved.send({ url: `https://${named}:${receiver.port}/named`, headers: HEADERS, body: BODY });
    expect(sent).toMatchObject({ ok: true, status: 200 });
    expect(receiver.requests.map((r) => r.path)).toEqual(['/named']);
  });

  it('rejects a caller’s bug with the TypeError HttpEgress throws', async () => {
    await expect(thread().send({ url: 'ftp://localhost/x', headers: HEADERS, body: BODY })).rejects.toThrow(
      new TypeError('cannot send: url scheme ftp: is not http(s)'),
    );
  });

  it('close() waits for the send in flight; a send after it fails as data and starts no thread', async () => {
    let arrived!: () => void;
    let answer!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const gate = new Promise<void>((resolve) => (answer = resolve));
    receiver.respondWith(async () => {
      arrived();
      await gate;
      return { status: 200, body: 'late' };
    });
    const egress = thread();
    const order: string[] = [];
    const inFlight = egress.send({ url: receiver.url, headers: HEADERS, body: BODY }).then((result) => {
      order.push('sent');
      return result;
    });
    await arrival;
    const closed = egress.close().then(() => order.push('closed'));
    answer();
    await closed;
    expect(await inFlight).toMatchObject({ ok: true, status: 200, responseHead: 'late' });
    expect(order).toEqual(['sent', 'closed']);
    expect(await egress.send({ url: receiver.url, headers: HEADERS, body: BODY })).toMatchObject({
      ok: false,
      status: null,
      error: 'connection: the egress client is closed',
    });
    expect(egress.starts).toBe(1);
    expect(egress.threadId).toBeUndefined();
  });

  it('a thread that dies fails the sends it held, and the next send starts another', async () => {
    const egress = thread({}, new URL('./egress-thread-dies.fixture.ts', import.meta.url));
    expect(await egress.send({ url: 'https://localhost/ok', headers: HEADERS, body: BODY })).toMatchObject({ ok: true, status: 200 });
    const first = egress.threadId;
    const lost = [
      egress.send({ url: 'https://localhost/die', headers: HEADERS, body: BODY }),
      egress.send({ url: 'https://localhost/ok', headers: HEADERS, body: BODY }),
    ];
    for (const send of lost) await expect(send).rejects.toThrow(/^the egress thread ended during the send: the egress thread exited \(code 3\)$/);
    expect(await egress.send({ url: 'https://localhost/ok', headers: HEADERS, body: BODY })).toMatchObject({ ok: true, status: 200 });
    expect(egress.starts).toBe(2);
    expect(egress.threadId).not.toBe(first);
  });
});
