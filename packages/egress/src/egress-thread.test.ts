import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { RECEIVER_TEST_HOST, TestReceiver, closedPort } from '@wirehook/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { EgressThread, EgressUnavailableError, type EgressThreadOptions } from './egress-thread.ts';

const HEADERS = { 'content-type': 'application/json', 'webhook-id': 'msg_thread' };
const BODY = '{"type":"invoice.paid","data":{"note":"café ☕"}}';

let receiver: TestReceiver;
const threads: EgressThread[] = [];

const STAND_IN = new URL('./testing/egress-thread-stand-in.ts', import.meta.url);

function thread(options: Partial<EgressThreadOptions> = {}, test: ConstructorParameters<typeof EgressThread>[1] = {}): EgressThread {
  const created = new EgressThread({ allowHosts: 'localhost', resolve: '', timeoutMs: 15_000, connectionsPerOrigin: 16, ca: receiver.caPem, ...options }, test);
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
  });

  it('moves a long body to the thread as bytes: it arrives whole, as the short one does', async () => {
    const egress = thread();
    const long = `{"data":"${'é☕x'.repeat(40_000)}"}`; // 240 KB of UTF-8, past MOVED_BODY_BYTES (64 KiB)
    const results = await Promise.all([long, BODY].map((body) => egress.send({ url: receiver.url, headers: HEADERS, body })));
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(receiver.requests.map((r) => r.body).sort((a, b) => b.length - a.length)).toEqual([long, BODY]);
    // As bytes (moved, not copied) only past 64 KiB: the long body's buffer went in the transfer list.
    const posted = vi.spyOn(Worker.prototype, 'postMessage');
    await egress.send({ url: receiver.url, headers: HEADERS, body: long });
    const moved = posted.mock.calls.at(-1)![1] as ArrayBuffer[];
    posted.mockRestore();
    expect(moved).toHaveLength(1);
    expect(moved[0]!.detached).toBe(true);
    const standIn = thread({}, { workerUrl: STAND_IN });
    expect((await standIn.send({ url: 'https://localhost/ok', headers: HEADERS, body: long })).responseHead).toBe(`1 bytes ${Buffer.byteLength(long)}`);
    const edge = 'x'.repeat(64 * 1024);
    expect((await standIn.send({ url: 'https://localhost/ok', headers: HEADERS, body: edge })).responseHead).toBe(`1 bytes ${64 * 1024}`);
    expect((await standIn.send({ url: 'https://localhost/ok', headers: HEADERS, body: edge.slice(1) })).responseHead).toBe('1');
  });

  it('start() brings the thread up before any send; a thread that cannot start fails it', async () => {
    const egress = thread();
    await egress.start();
    await egress.start();
    expect(egress.starts).toBe(1);
    expect(await egress.send({ url: receiver.url, headers: HEADERS, body: BODY })).toMatchObject({ ok: true });
    expect(egress.starts).toBe(1);
    const broken = thread({}, { workerUrl: new URL('./no-such-worker.ts', import.meta.url) });
    await expect(broken.start()).rejects.toThrow(/^the egress thread did not start: /);
  });

  it('sends of one turn cross in one message, a later turn’s in another', async () => {
    const egress = thread({}, { workerUrl: STAND_IN });
    const send = () => egress.send({ url: 'https://localhost/ok', headers: HEADERS, body: BODY });
    const turn = await Promise.all([send(), send(), send()]);
    expect(turn.map((r) => r.responseHead)).toEqual(['3', '3', '3']);
    expect((await send()).responseHead).toBe('1');
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

  it('a value that cannot cross to the thread fails its own send alone, as a TypeError', async () => {
    const egress = thread();
    const bad = { ...HEADERS, 'x-bad': (() => 'no') as unknown as string };
    const [refused, sent] = await Promise.allSettled([
      egress.send({ url: receiver.url, headers: bad, body: BODY }),
      egress.send({ url: receiver.url, headers: HEADERS, body: BODY }),
    ]);
    expect(refused.status === 'rejected' && refused.reason).toBeInstanceOf(TypeError);
    expect(refused.status === 'rejected' && (refused.reason as Error).message).toMatch(/^cannot send: .*could not be cloned/);
    expect(sent).toMatchObject({ status: 'fulfilled', value: { ok: true, status: 200 } });
    expect(receiver.requests).toHaveLength(1);
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
  });

  it('a thread that dies fails the sends it held as EgressUnavailableError; none starts for a second, then one does', async () => {
    const send = (egress: EgressThread, path: string) => egress.send({ url: `https://localhost${path}`, headers: HEADERS, body: BODY });
    const egress = thread({}, { workerUrl: STAND_IN, restartDelayMs: 0 });
    expect(await send(egress, '/ok')).toMatchObject({ ok: true, status: 200 });
    const lost = await Promise.allSettled([send(egress, '/die'), send(egress, '/ok')]);
    for (const send of lost) {
      expect(send.status === 'rejected' && send.reason).toBeInstanceOf(EgressUnavailableError);
      expect(send.status === 'rejected' && (send.reason as Error).message).toBe('the egress thread ended during the send: the egress thread exited (code 3)');
    }
    expect(await send(egress, '/ok')).toMatchObject({ ok: true, status: 200 });
    expect(egress.starts).toBe(2);
    // With the default wait, a send just after the loss fails at once and starts no thread.
    const waiting = thread({}, { workerUrl: STAND_IN });
    await expect(send(waiting, '/die')).rejects.toBeInstanceOf(EgressUnavailableError);
    await expect(send(waiting, '/ok')).rejects.toThrow(/^the egress thread is starting again: the egress thread exited \(code 3\)$/);
    expect(waiting.starts).toBe(1);
  });

  it('an answered send’s deadline is cleared: the thread outlives it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const egress = thread({ timeoutMs: 50 }, { workerUrl: STAND_IN, restartDelayMs: 0 });
      const send = () => egress.send({ url: 'https://localhost/ok', headers: HEADERS, body: BODY });
      expect(await send()).toMatchObject({ ok: true });
      vi.advanceTimersByTime(60_000); // far past 2 × 50 + 5,000 ms
      expect(await send()).toMatchObject({ ok: true });
      expect(egress.starts).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a send held past both of its limits ends the thread: its sends fail, and the next goes to a new one', async () => {
    // timeoutMs 100: an answer is owed within 2 × 100 + 5,000 ms.
    const egress = thread({ timeoutMs: 100 }, { workerUrl: STAND_IN, restartDelayMs: 0 });
    const send = (path: string) => egress.send({ url: `https://localhost${path}`, headers: HEADERS, body: BODY });
    const held = await Promise.allSettled([send('/hang'), send('/hang')]);
    for (const one of held) {
      expect(one.status === 'rejected' && one.reason).toBeInstanceOf(EgressUnavailableError);
      expect(one.status === 'rejected' && (one.reason as Error).message).toBe('the egress thread ended during the send: no answer within 5200 ms');
    }
    expect(await send('/ok')).toMatchObject({ ok: true, status: 200 });
    expect(egress.starts).toBe(2);
  });

  it('a send still waiting to cross when the thread ends fails as not held (the thread never had it), and the next goes to a new one', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const egress = thread({ timeoutMs: 100 }, { workerUrl: STAND_IN, restartDelayMs: 0 });
      const send = (path: string) => egress.send({ url: `https://localhost${path}`, headers: HEADERS, body: BODY });
      await egress.start();
      const hung = send('/hang').catch((err: unknown) => err);
      await new Promise((resolve) => setImmediate(resolve)); // its turn's message has crossed
      const waiting = send('/ok').catch((err: unknown) => err); // this turn's has not
      vi.advanceTimersByTime(5_200); // the hung send's 2 × 100 + 5,000 ms: the thread is ended
      const [held, unsent] = (await Promise.all([hung, waiting])) as EgressUnavailableError[];
      expect(held).toBeInstanceOf(EgressUnavailableError);
      expect(held!.held).toBe(true);
      expect(unsent).toBeInstanceOf(EgressUnavailableError);
      expect(unsent!.held).toBe(false);
      expect(unsent!.message).toBe('the egress thread ended before the send: no answer within 5200 ms');
      // The new thread's first message carries its own send alone: the lost outbox was emptied.
      expect(await send('/ok')).toMatchObject({ ok: true, status: 200, responseHead: '1' });
      expect(egress.starts).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('holds its process open while it starts and while a send waits, and lets it end otherwise', () => {
    const alone = (...paths: string[]) =>
      spawnSync(process.execPath, [new URL('./testing/egress-thread-alone.ts', import.meta.url).pathname, ...paths], { encoding: 'utf8', timeout: 20_000 });
    // Started, no send: the process ends (it had stayed for ever: spawnSync's 20 s kill, status null).
    expect(alone()).toMatchObject({ stdout: 'started\n', stderr: '', status: 0 });
    // One send answered, then one left waiting: the process stays for its answer (without ref()
    // it would end before it), then ends (without unref() it would stay).
    expect(alone('/ok', '/slow')).toMatchObject({ stdout: 'started\n/ok answered 200\n/slow answered 200\n', stderr: '', status: 0 });
  });
});
