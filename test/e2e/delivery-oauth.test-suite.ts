// The delivery suite's OAuth 2.0 client credentials (`auth`), against a real token endpoint
// (test/support/token-server.ts) and a receiver that takes only its live tokens: the webhook
// arrives with a Bearer token and verifies; 1,000 deliveries cost one token request; a revoked
// token's 401 gets one new token and the same attempt succeeds; a failing token endpoint gives
// `auth` attempts that are retried, and the receiver is never sent to without a token.
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@wirehook/testkit';
import type { DeliveryHarness, DeliverySuite } from '../support/delivery-suite-context.ts';
import { startReceiver, verifyAt, type NamedReceiver } from '../support/receivers.ts';
import { TokenServer } from '../support/token-server.ts';

/** Registers the part in the calling describe. */
export function describeOAuth(suite: DeliverySuite): void {
  describe('OAuth 2.0 client credentials (auth)', () => {
    const { endpoint, send, detail, requestsFor, extra } = suite;
    let wh: DeliveryHarness;
    let tokens: TokenServer;
    let protectedRx: NamedReceiver;
    beforeAll(async () => {
      wh = suite.wh;
      tokens = await TokenServer.start({ method: 'client_secret_basic' });
      protectedRx = await startReceiver();
      protectedRx.receiver.respondWith(tokens.requireBearer({ status: 204 }));
      extra.push(tokens.named, protectedRx);
    });

    it('the webhook arrives with a Bearer token from the token endpoint and verifies; the endpoint shows auth, never the secret', async () => {
      const ep = await endpoint({ auth: tokens.auth({ scope: 'webhooks:write' }) }, protectedRx.url());
      const shown = (await suite.t.api.get(`/v1/endpoints/${ep.id}`)).body;
      expect(shown.auth).toEqual({
        type: 'oauth2_client_credentials',
        token_url: tokens.url,
        client_id: tokens.clientId,
        scope: 'webhooks:write',
        audience: null,
        token_auth_method: 'client_secret_basic',
      });
      expect(JSON.stringify(shown)).not.toContain(tokens.clientSecret);
      const before = tokens.requests.length;
      const id = (await send(ep.consumer)).body.id;
      await eventually(() => expect(requestsFor(protectedRx, id)).toHaveLength(1));
      const request = requestsFor(protectedRx, id)[0]!;
      expect(tokens.isLive(/^Bearer (\S+)$/.exec(request.headers['authorization'] ?? '')![1]!)).toBe(true);
      expect(verifyAt(protectedRx.receiver, ep.secret, request, wh.clock.now())).toBeTruthy();
      // The attempt is recorded after the receiver answered: wait for it, not only for the request.
      await eventually(async () =>
        expect((await detail(id)).deliveries[0]).toMatchObject({ status: 'success', attempts: [expect.objectContaining({ response_status: 204 })] }),
      );
      expect(tokens.requests.length - before).toBe(1);
      expect(new URLSearchParams(tokens.requests.at(-1)!.body).get('scope')).toBe('webhooks:write');
    });

    it('1,000 deliveries to one endpoint cost one token request, all sent with its token', async () => {
      const ep = await endpoint({ auth: tokens.auth() }, protectedRx.url());
      const before = tokens.requests.length;
      const ids: string[] = [];
      for (let batch = 0; batch < 20; batch++) {
        const sent = await Promise.all(Array.from({ length: 50 }, (_, i) => send(ep.consumer, { n: batch * 50 + i })));
        ids.push(...sent.map((r) => r.body.id as string));
      }
      const mine = new Set(ids);
      const arrived = () => protectedRx.receiver.requests.filter((r) => mine.has(r.headers['webhook-id']!));
      await eventually(() => expect(new Set(arrived().map((r) => r.headers['webhook-id'])).size).toBe(1_000), 120_000, 250);
      expect(tokens.requests.length - before).toBe(1);
      expect(new Set(arrived().map((r) => r.headers['authorization'])).size).toBe(1);
    }, 180_000);

    it('a revoked token: the receiver’s 401 brings one new token, and each webhook arrives in its first attempt', async () => {
      const ep = await endpoint({ auth: tokens.auth() }, protectedRx.url());
      const first = (await send(ep.consumer)).body.id;
      await eventually(() => expect(requestsFor(protectedRx, first)).toHaveLength(1));
      const old = /^Bearer (\S+)$/.exec(requestsFor(protectedRx, first)[0]!.headers['authorization']!)![1]!;
      // A token is replaced on a 401 once it is 30 s old (a receiver refusing fresh ones costs no token storm).
      await wh.advance(30_000);
      tokens.revoke(old);
      const before = tokens.requests.length;
      const ids = await Promise.all(Array.from({ length: 5 }, async (_, n) => (await send(ep.consumer, { n })).body.id as string));
      await eventually(async () => {
        for (const id of ids) expect((await detail(id)).deliveries[0].status).toBe('success');
      });
      expect(tokens.requests.length - before).toBe(1);
      for (const id of ids) {
        const delivery = (await detail(id)).deliveries[0];
        // One attempt each: the 401 and the send with the new token are the same attempt.
        expect(delivery.attempts).toEqual([expect.objectContaining({ response_status: 204, error: null })]);
        expect(requestsFor(protectedRx, id).map((r) => r.headers['authorization'])).toContain(`Bearer ${tokens.issued.at(-1)!.token}`);
      }
    });

    it('a failing token endpoint: attempts fail as auth with its answer, are retried, counted in stats; the receiver gets nothing', async () => {
      const failing = await TokenServer.start({ method: 'client_secret_post' });
      const rx = await startReceiver();
      rx.receiver.respondWith(failing.requireBearer({ status: 204 }));
      extra.push(failing.named, rx);
      failing.failWith = { status: 503, body: '{"error":"temporarily_unavailable"}', headers: { 'content-type': 'application/json' } };
      const ep = await endpoint({ auth: failing.auth(), retry: { count: 12, interval: '1m' } }, rx.url());
      const id = (await send(ep.consumer)).body.id;
      await eventually(async () =>
        expect((await detail(id)).deliveries[0].attempts).toEqual([
          expect.objectContaining({ response_status: null, error: 'auth: token endpoint answered 503: {"error":"temporarily_unavailable"}' }),
        ]),
      );
      expect((await detail(id)).deliveries[0].status).toBe('retrying');
      expect(requestsFor(rx, id)).toEqual([]);
      // In cluster mode the dispatcher's rollups arrive within its flush interval (docs/semantics.md).
      await eventually(async () =>
        expect((await suite.t.api.get(`/v1/endpoints/${ep.id}/stats?window=1h`)).body.errors).toMatchObject({ auth: 1, connection: 0, http_5xx: 0 }),
      );
      // A client secret the token endpoint refuses is the same kind, with its error.
      failing.failWith = null;
      const wrong = await endpoint({ auth: { ...failing.auth(), client_secret: 'not-the-secret' } }, rx.url());
      const refused = (await send(wrong.consumer)).body.id;
      await eventually(async () =>
        expect((await detail(refused)).deliveries[0].attempts).toEqual([
          expect.objectContaining({ error: 'auth: token endpoint answered 401: {"error":"invalid_client"}' }),
        ]),
      );
      // The token endpoint recovers: a retry after the dispatcher's 5-second hold on asking it again
      // (real time) gets a token and delivers. Each minute moved makes the next retry due.
      await eventually(
        async () => {
          await wh.advance(61_000);
          expect(requestsFor(rx, id)).toHaveLength(1);
        },
        30_000,
        2_000,
      );
      await eventually(async () => expect((await detail(id)).deliveries[0].status).toBe('success'));
    }, 90_000);
  });
}
