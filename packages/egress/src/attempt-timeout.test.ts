// The spec's attempt timeout, 15 seconds, with the egress's defaults and a real HTTPS receiver
// that answers late: an answer 14.5 s after the request is a response, one at 15.5 s is a
// timeout. The timers (the egress's limit and the receiver's delay) are fake, so the test
// takes milliseconds; the connection, TLS and HTTP are real.
import { TestReceiver } from '@wirehook/testkit';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { AddressPolicy } from './address-policy.ts';
import { HttpEgress } from './http-egress.ts';

let receiver: TestReceiver;
let egress: HttpEgress | undefined;
beforeAll(async () => {
  receiver = await TestReceiver.start();
});
afterAll(() => receiver.close());
afterEach(async () => {
  // Whatever a failed test left pending (the receiver's late answer) runs out before the real timers return.
  if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(60_000);
  vi.useRealTimers();
  await egress?.close();
  receiver.clear();
});

/**
 * Sends with every default (no timeoutMs) once the timers are fake, or with the send's own `limitMs` (an egress
 * relay's); resolves once the receiver holds the request.
 */
async function sendLate(delayMs: number, limitMs?: number) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  receiver.respondWith({ status: 200, body: 'ok', delayMs });
  egress = new HttpEgress({ policy: new AddressPolicy({ allowHosts: 'localhost' }), ca: receiver.caPem });
  let settled = false;
  const request = { url: `${receiver.url}/hook`, headers: { 'content-type': 'application/json' }, body: '{}' };
  const sending = egress.send(limitMs === undefined ? request : { ...request, timeoutMs: limitMs }).finally(() => {
    settled = true;
  });
  // Real I/O runs while the fake clock stands still: wait for the request to arrive.
  while (receiver.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
  return { sending, settled: () => settled };
}

/** Lets real I/O run (the fake clock standing still) until `done`, or a bounded number of turns. */
async function spin(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 5_000 && !done(); turn++) await new Promise((resolve) => setImmediate(resolve));
}

it('an answer 14.5 s after the request is in time', async () => {
  const { sending, settled } = await sendLate(14_500);
  await vi.advanceTimersByTimeAsync(14_500);
  await spin(settled);
  expect(settled()).toBe(true);
  expect(await sending).toMatchObject({ ok: true, status: 200, error: null, responseHead: 'ok' });
});

/** The send of `sendLate(answerAfterMs, limitMs)` is still open 1 ms before `timeoutAtMs` and a timeout at it, saying `words`. */
async function timesOutAt(answerAfterMs: number, limitMs: number | undefined, timeoutAtMs: number, words: string): Promise<void> {
  const { sending, settled } = await sendLate(answerAfterMs, limitMs);
  await vi.advanceTimersByTimeAsync(timeoutAtMs - 1);
  expect(settled()).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  await spin(settled);
  expect(settled()).toBe(true);
  expect(await sending).toMatchObject({ ok: false, status: null, error: words });
}

it('an answer due 15.5 s after the request is a timeout at 15 s', () => timesOutAt(15_500, undefined, 15_000, 'timeout: no response within 15 s'));

it('a send’s own shorter limit (an egress relay’s, the dispatcher’s timeout): an answer due 10.5 s after the request is a timeout at 10 s', () =>
  timesOutAt(10_500, 10_000, 10_000, 'timeout: no response within 10 s'));

it('a send’s own limit never lengthens the client’s: asked for 20 s, an answer due 15.5 s is a timeout at 15 s', () =>
  timesOutAt(15_500, 20_000, 15_000, 'timeout: no response within 15 s'));

it('a send’s own shorter limit bounds its wait for a connection too: behind a held one, a timeout at 10 s (not 15)', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  receiver.respondWith({ status: 200, body: 'ok', delayMs: 60_000 });
  // One connection for the endpoint: the second send waits for the first's.
  egress = new HttpEgress({ policy: new AddressPolicy({ allowHosts: 'localhost' }), ca: receiver.caPem, connectionsPerOrigin: 1 });
  const request = { url: `${receiver.url}/hook`, poolKey: 'ep_1', headers: { 'content-type': 'application/json' }, body: '{}' };
  void egress.send(request);
  while (receiver.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
  let settled = false;
  const waiting = egress.send({ ...request, timeoutMs: 10_000 }).finally(() => {
    settled = true;
  });
  await vi.advanceTimersByTimeAsync(9_999);
  expect(settled).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  await spin(() => settled);
  expect(await waiting).toMatchObject({ ok: false, status: null, error: 'timeout: no connection within 10 s' });
  expect(receiver.requests).toHaveLength(1);
});
