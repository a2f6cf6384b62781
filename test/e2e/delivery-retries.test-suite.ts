// The delivery suite's retries: the default progressive schedule and each kind of failure,
// driven by moving the clock.
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@wirehook/testkit';
import { refusingUrl, startReceiver, verifyAt, type NamedReceiver } from '../support/receivers.ts';
import { S, M, H, type DeliveryHarness, type DeliverySuite } from '../support/delivery-suite-context.ts';

/** Registers the part in the calling describe. */
export function describeRetries(suite: DeliverySuite): void {
  describe('failures are retried on schedule and end failed', () => {
    const { extra, endpoint, send, detail, requestsFor } = suite;
    let wh: DeliveryHarness;
    let rx: NamedReceiver;
    beforeAll(() => {
      ({ wh, rx } = suite);
    });

    it('500 on the default progressive schedule: 8 sends over ~28 hours, then failed', async () => {
      rx.receiver.respondWith({ status: 500, body: 'database is on fire' });
      const ep = await endpoint();
      const msgId = (await send(ep.consumer)).body.id;
      await eventually(() => expect(requestsFor(rx, msgId)).toHaveLength(1));
      const delays = [5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H];
      for (const [i, delay] of delays.entries()) {
        await eventually(async () => expect((await detail(msgId)).deliveries[0].attempt_count).toBe(i + 1));
        const d = (await detail(msgId)).deliveries[0];
        expect(d.status).toBe('retrying');
        expect(d.next_attempt_at - d.attempts.at(-1).at).toBe(delay);
        await wh.advance(delay - 1_000); // not yet due
        expect(requestsFor(rx, msgId)).toHaveLength(i + 1);
        await wh.advance(1_000);
        await eventually(() => expect(requestsFor(rx, msgId)).toHaveLength(i + 2));
      }
      await eventually(async () => expect((await detail(msgId)).status).toBe('failed'));
      const d = (await detail(msgId)).deliveries[0];
      expect(d).toMatchObject({ status: 'failed', attempt_count: 8, next_attempt_at: null });
      expect(d.attempts[0]).toMatchObject({ response_status: 500, response_head: 'database is on fire', error: 'http_status: 500' });
      // Every send carried the same webhook-id and a valid signature for its own time.
      for (const req of requestsFor(rx, msgId)) {
        expect(verifyAt(rx.receiver, ep.secret, req, Number(req.headers['webhook-timestamp']) * 1000)).toBeTruthy();
      }
      await wh.advance(10 * H);
      expect(requestsFor(rx, msgId)).toHaveLength(8);
    });

    const modes: [string, () => Promise<{ url: string; setup?: () => void }>, RegExp, number | null][] = [
      ['404', async () => ({ url: rx.url('/gone'), setup: () => rx.receiver.respondWith({ status: 404 }) }), /^http_status: 404$/, 404],
      [
        'a 3xx redirect (not followed)',
        async () => ({ url: rx.url('/moved'), setup: () => rx.receiver.respondWith({ redirectTo: rx.url('/elsewhere') }) }),
        /^redirect: 302 to .*elsewhere not followed$/,
        302,
      ],
      ['a hang past the timeout', async () => ({ url: rx.url('/slow'), setup: () => rx.receiver.respondWith({ hang: true }) }), /^timeout: /, null],
      ['a refused connection', async () => ({ url: refusingUrl() }), /^connection: .*ECONNREFUSED/, null],
      [
        'a TLS error',
        async () => {
          const bad = await startReceiver({ untrusted: true });
          extra.push(bad);
          return { url: bad.url() };
        },
        /^tls: /,
        null,
      ],
    ];

    it.each(modes)('%s: retried after the interval, then failed', async (_name, make, error, status) => {
      const target = await make();
      target.setup?.();
      const ep = await endpoint({ retry: { count: 1, interval: '1m' } }, target.url);
      const msgId = (await send(ep.consumer)).body.id;
      await eventually(async () => expect((await detail(msgId)).deliveries[0].attempt_count).toBe(1), 10_000);
      let d = (await detail(msgId)).deliveries[0];
      expect(d.status).toBe('retrying');
      expect(d.attempts[0].error).toMatch(error);
      expect(d.attempts[0].response_status).toBe(status);
      expect(d.next_attempt_at).toBe(d.attempts[0].at + M);
      await wh.advance(M);
      await eventually(async () => expect((await detail(msgId)).status).toBe('failed'), 10_000);
      d = (await detail(msgId)).deliveries[0];
      expect(d.attempt_count).toBe(2);
      expect(d.attempts.map((a: { error: string }) => a.error)).toEqual([expect.stringMatching(error), expect.stringMatching(error)]);
      const redirectTarget = rx.receiver.requests.filter((r) => r.path === '/elsewhere');
      expect(redirectTarget).toHaveLength(0);
    });
  });
}
