// The bench receiver's `hang` mode: a route holds its requests open, and leaving the mode
// (setMode) answers each held request 503, so that a Wirehook stopped after a scenario does not
// wait out its attempts' timeouts. Real receiver process, real signed HTTPS requests.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type UndiciPool, type UndiciResponse } from '../../bench/http/undici.ts';
import type { RouteMode } from '../../bench/receiver/protocol.ts';
import { BenchReceiver } from '../../bench/receiver/receiver-client.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
let receiver: BenchReceiver;
let pool: UndiciPool;

beforeAll(async () => {
  receiver = await BenchReceiver.start();
  // A connection per request in flight at once (the pool does not pipeline).
  pool = createPool(`https://${receiver.ip}:8443`, 8, { ca: receiver.ca.caPem, servername: receiver.host });
});
afterAll(async () => {
  // The receiver first: a held request left open (the release broken) ends with it, instead of holding the pool's close.
  await receiver?.close();
  await pool?.close();
});

/** A webhook signed as Wirehook signs it, posted to a route; @returns its status once answered. */
async function send(route: string): Promise<number> {
  const id = `msg_${randomUUID()}`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const body = JSON.stringify({ type: 'bench.test', timestamp: new Date().toISOString(), data: {} });
  const signature = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');
  const res: UndiciResponse = await pool.request({
    method: 'POST',
    path: `/r/${route}`,
    headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` },
    body,
  });
  await res.body.dump();
  return res.statusCode;
}

/** `promise`, or an error naming `what` after `ms` (a guard against a hang: not a bound on how fast). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

describe('the bench receiver', () => {
  it("answers a hung route's held requests 503 when it leaves `hang`, that route's only; routes in ok and fail answer meanwhile", async () => {
    const route = (id: string, mode: RouteMode, group: string) => ({ id, secret, mode, group });
    await receiver.addRoutes([
      route('hung-a', 'hang', 'stuck'),
      route('hung-b', 'hang', 'stuck'),
      route('ok', 'ok', 'healthy'),
      route('fail', 'fail', 'failing'),
    ]);
    const heldA = [send('hung-a'), send('hung-a'), send('hung-a')];
    const heldB = send('hung-b');
    // Every one held (the wait's deadline only a guard against a hang).
    await receiver.waitFor((s) => s.held === 4, 10_000, 'four requests held');
    // Other routes answer while those are held.
    expect(await send('ok')).toBe(200);
    expect(await send('fail')).toBe(500);

    await receiver.setMode(['hung-a'], 'ok');
    // Answered by the time setMode returns: hung-b's still held.
    expect((await receiver.stats()).held).toBe(1);
    expect(await within(Promise.all(heldA), 10_000, "hung-a's held requests answered")).toEqual([503, 503, 503]);
    await receiver.setMode(['hung-b'], 'fail');
    expect((await receiver.stats()).held).toBe(0);
    expect(await within(heldB, 10_000, "hung-b's held request answered")).toBe(503);

    // Their new modes answer from now on; the 503s were neither deliveries nor failures.
    expect(await send('hung-a')).toBe(200);
    expect(await send('hung-b')).toBe(500);
    const { groups, invalid, unknownRoute } = await receiver.stats();
    expect(groups['stuck']).toMatchObject({ delivered: 1, failed: 1, duplicates: 0 });
    expect(groups['healthy']).toMatchObject({ delivered: 1, failed: 0 });
    expect(groups['failing']).toMatchObject({ delivered: 0, failed: 1 });
    expect(invalid + unknownRoute).toBe(0);
  });
});
