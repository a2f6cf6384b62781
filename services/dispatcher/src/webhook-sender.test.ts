// WebhookSender: which way a POST goes, what a send that cannot be made answers, and the
// cases with no attempt — a signing secret this process's key ring does not open, a sandbox
// or an egress thread that could not take the send.
import { CANCELLED_ATTEMPT_ERROR, SecretBox, storedTransformation, type EndpointAuth } from '@wirehook/core';
import { silentLogger } from '@wirehook/platform';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Store } from '@wirehook/store';
import { DeliveryLeases } from './delivery-leases.ts';
import { DispatchScene, FakeSender, OK, tokenResult } from './testing/dispatch-scene.ts';
import type { SendResult } from './outcome.ts';
import { EGRESS_LOSSES_BEFORE_ATTEMPT, WebhookSender, type TokenSender } from './webhook-sender.ts';
import { EgressUnavailableError } from '@wirehook/egress';
import { TransformRunner } from '@wirehook/transform';

/** Threads start at a first run: the tests without a transformation start none. */
const transforms = new TransformRunner();

let s: DispatchScene;
let direct: FakeSender;
let relay: FakeSender;

beforeEach(() => {
  s = new DispatchScene();
  direct = new FakeSender();
  relay = new FakeSender();
});
afterEach(() => s.close());
afterAll(() => transforms.close());

/** What every sender over the scene has. */
function senderDeps(sender: TokenSender = direct) {
  const leases = new DeliveryLeases({ store: s.store, clock: s.clock, logger: silentLogger(), metrics: s.metrics, leaseMs: 17_000 });
  return { sender, relay, secretBox: s.box, leases, clock: s.clock, logger: silentLogger(), metrics: s.metrics, kv: s.kv, timeoutMs: 1_000 };
}

/** A sender over the scene; `more`: listener connections, or the store a transformation's code is read from. */
function webhooks(sender: TokenSender = direct, more: { listen?: FakeSender; store?: Pick<Store, 'endpoints'> } = {}): WebhookSender {
  return new WebhookSender({ ...senderDeps(sender), listen: more.listen, transforms, store: more.store ?? s.store });
}

async function claimed(overrides: Parameters<DispatchScene['endpoint']>[0] = {}, box?: SecretBox) {
  const { t } = await s.endpoint(overrides, box);
  const [id] = await s.due(t);
  return s.claim(id!);
}

describe('WebhookSender', () => {
  it('sends a signed request to the endpoint directly, pooled by endpoint', async () => {
    const job = await claimed();
    expect(await webhooks().send(job, s.clock.now())).toEqual(OK);
    expect(direct.requests).toHaveLength(1);
    expect(direct.requests[0]).toMatchObject({ url: job.endpoint.url, poolKey: job.endpoint.id });
    expect(direct.requests[0]!.headers['webhook-signature']).toMatch(/^v1,/);
    expect(relay.requests).toHaveLength(0);
  });

  it('fixed_ip endpoints go through the relay, never directly', async () => {
    const job = await claimed({ fixedIp: true });
    expect(await webhooks().send(job, s.clock.now())).toEqual(OK);
    expect([relay.requests.length, direct.requests.length]).toEqual([1, 0]);
  });

  it('a URL the rules forbid is not sent to: a blocked result', async () => {
    const job = await claimed({ url: 'http://hooks.acme.example/wirehook' });
    expect(await webhooks().send(job, s.clock.now())).toMatchObject({ ok: false, status: null, error: 'blocked: url must use https' });
    expect(direct.requests).toHaveLength(0);
  });

  it('a sender that throws is an internal failure, not a crash', async () => {
    const job = await claimed();
    const broken: TokenSender = { send: () => Promise.reject(new Error('bug')), fetchToken: () => Promise.reject(new Error('bug')) };
    expect(await webhooks(broken).send(job, s.clock.now())).toMatchObject({ ok: false, status: null, error: 'internal: the send failed inside Wirehook' });
  });

  it('the egress thread lost with the send: no attempt (null), and due again a second later', async () => {
    const job = await claimed();
    const cause = new Error('the egress thread exited (code 1)');
    const lost = () => Promise.reject(new EgressUnavailableError('the egress thread ended during the send', { cause, held: true }));
    const now = s.clock.now();
    expect(await webhooks({ send: lost, fetchToken: lost }).send(job, now)).toBeNull();
    expect(await s.dueAt(now + 999, [job.delivery.id])).toEqual([]);
    expect(await s.dueAt(now + 1_000, [job.delivery.id])).toEqual([job.delivery.id]);
  });

  it(`a send held by ${EGRESS_LOSSES_BEFORE_ATTEMPT} threads as they ended is an internal attempt; a thread still starting counts none`, async () => {
    const job = await claimed();
    const cause = new Error('the egress thread exited (code 1)');
    let held = true;
    const lost = () => Promise.reject(new EgressUnavailableError('lost', { cause, held }));
    const sender = webhooks({ send: lost, fetchToken: lost });
    // Refused while a thread starts again: never the send's doing, put off every time.
    held = false;
    for (let i = 0; i < 5; i++) expect(await sender.send(job, s.clock.now())).toBeNull();
    held = true;
    for (let i = 1; i < EGRESS_LOSSES_BEFORE_ATTEMPT; i++) expect(await sender.send(job, s.clock.now())).toBeNull();
    expect(await sender.send(job, s.clock.now())).toMatchObject({ ok: false, status: null, error: 'internal: 3 sending threads ended with this send' });
    // Counted again from nothing after the attempt; and another delivery's count is its own.
    expect(await sender.send(job, s.clock.now())).toBeNull();
  });

  it('a secret this key ring does not open: no request, null, counted, and due again a minute later', async () => {
    const job = await claimed({}, new SecretBox(Buffer.alloc(32, 9)));
    const now = s.clock.now();
    expect(await webhooks().send(job, now)).toBeNull();
    expect(direct.requests).toHaveLength(0);
    expect(await s.metric('wirehook_dispatch_unseal_errors_total')).toBe(1);
    expect(await s.dueAt(now + 59_999, [job.delivery.id])).toEqual([]);
    expect(await s.dueAt(now + 60_000, [job.delivery.id])).toEqual([job.delivery.id]);
  });

  it('an endpoint whose client certificate expired is not sent to: a tls attempt saying when (one ms before, it is sent)', async () => {
    const notAfter = s.clock.now() + 1_000;
    const tls = {
      certificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      sealedKey: 'v1.unused',
      serverCa: null,
      info: { subject: 'CN=c', issuer: 'CN=ca', notAfter, fingerprintSha256: 'AB', serverCaSubject: null },
    };
    const job = await claimed({ tls });
    expect(await webhooks().send(job, notAfter)).toMatchObject({
      ok: false,
      status: null,
      error: `tls: the endpoint's client certificate expired on ${new Date(notAfter).toISOString()}; set a new one (tls)`,
    });
    expect(direct.requests).toHaveLength(0);
    // Still valid one millisecond earlier: it goes on to be sent (here its made-up key does not open: put off).
    expect(await webhooks().send(job, notAfter - 1)).toBeNull();
  });

  describe('OAuth client credentials (auth)', () => {
    /** A claimed delivery of an endpoint with credentials whose secret is sealed for it. */
    async function withAuth(overrides: Parameters<DispatchScene['endpoint']>[0] = {}, auth: Partial<EndpointAuth> = {}) {
      const { t, endpoint } = await s.endpoint(overrides);
      await s.withOAuth(t, endpoint, auth);
      const [id] = await s.due(t);
      return s.claim(id!);
    }

    it('sends the token as Authorization: Bearer, fetched once with the opened secret and reused', async () => {
      const job = await withAuth();
      const sender = webhooks();
      expect(await sender.send(job, s.clock.now())).toEqual(OK);
      expect(await sender.send(job, s.clock.now())).toEqual(OK);
      expect(direct.tokenFetches).toEqual([
        {
          poolKey: job.endpoint.id,
          credentials: {
            tokenUrl: 'https://auth.acme.example/oauth/token',
            clientId: 'wirehook',
            clientSecret: 's3cret',
            scope: 'hooks',
            audience: null,
            tokenAuthMethod: 'client_secret_post',
          },
        },
      ]);
      expect(direct.requests.map((r) => r.headers['authorization'])).toEqual(['Bearer token-1', 'Bearer token-1']);
      expect(direct.requests[0]!.headers['webhook-signature']).toMatch(/^v1,/);
    });

    it('the egress thread lost with the token request: put off like the webhook, nothing sent, due a second later', async () => {
      const job = await withAuth();
      const lost = () => Promise.reject(new EgressUnavailableError('lost', { cause: new Error('the egress thread exited (code 1)'), held: true }));
      const sending: TokenSender = { fetchToken: lost, send: (request) => direct.send(request) };
      const now = s.clock.now();
      expect(await webhooks(sending).send(job, now)).toBeNull();
      expect(direct.requests).toHaveLength(0);
      expect(await s.dueAt(now + 999, [job.delivery.id])).toEqual([]);
      expect(await s.dueAt(now + 1_000, [job.delivery.id])).toEqual([job.delivery.id]);
    });

    it('a 401 drops the token: one new one, and the same webhook sent once more in the same attempt', async () => {
      const job = await withAuth();
      const refusing: TokenSender = {
        fetchToken: (fetch) => direct.fetchToken(fetch),
        send: async (request) => {
          await direct.send(request);
          const ok = request.headers['authorization'] === 'Bearer token-2';
          return ok ? OK : { ok: false, status: 401, responseHead: 'expired', error: 'http_status: 401', durationMs: 5, sourceIp: '127.0.0.1' };
        },
      };
      const sender = webhooks(refusing);
      // A token under 30 s old is not replaced on a 401 (the receiver refuses fresh ones): the 401 is the answer.
      expect(await sender.send(job, s.clock.now())).toMatchObject({ ok: false, status: 401 });
      expect(direct.tokenFetches).toHaveLength(1);
      s.clock.advance(30_000);
      direct.requests.length = 0;
      expect(await sender.send(job, s.clock.now())).toMatchObject({ ok: true, status: 200 });
      expect(direct.tokenFetches).toHaveLength(2);
      expect(direct.requests.map((r) => r.headers['authorization'])).toEqual(['Bearer token-1', 'Bearer token-2']);
      expect(direct.requests[1]!.body).toBe(direct.requests[0]!.body);
    });

    it('a 401 for the new token too is the attempt’s answer: no third send, no third token', async () => {
      const job = await withAuth();
      const refusing: TokenSender = {
        fetchToken: (fetch) => direct.fetchToken(fetch),
        send: async (request) => {
          await direct.send(request);
          return { ok: false, status: 401, responseHead: 'no', error: 'http_status: 401', durationMs: 5, sourceIp: '127.0.0.1' };
        },
      };
      const sender = webhooks(refusing);
      await sender.send(job, s.clock.now()); // token-1, refused, too young to replace
      s.clock.advance(30_000);
      direct.requests.length = 0;
      const result = await sender.send(job, s.clock.now());
      expect(result).toMatchObject({ ok: false, status: 401, error: 'http_status: 401' });
      // Both sends' time (5 ms each) and the token request's: the attempt's whole duration.
      expect(result?.durationMs).toBeGreaterThanOrEqual(10);
      expect([direct.tokenFetches.length, direct.requests.length]).toEqual([2, 2]);
    });

    it('no token: the attempt fails as auth with the token endpoint’s answer, and the endpoint is not sent to', async () => {
      const job = await withAuth();
      direct.tokenAnswer = () => ({
        ok: false,
        status: 400,
        responseHead: '{"error":"invalid_scope"}',
        error: 'http_status: 400',
        durationMs: 4,
        sourceIp: null,
      });
      expect(await webhooks().send(job, s.clock.now())).toMatchObject({
        ok: false,
        status: null,
        error: 'auth: token endpoint answered 400: {"error":"invalid_scope"}',
      });
      expect(direct.requests).toHaveLength(0);
    });

    it('the dispatcher stopping: a send still waiting for its token gives way (null, nothing sent, due again now); the token is still kept', async () => {
      const job = await withAuth();
      let answerToken: (result: SendResult) => void = () => {};
      const slowTokens: TokenSender = {
        fetchToken: (fetch) => {
          direct.tokenFetches.push(fetch);
          return new Promise((resolve) => (answerToken = resolve));
        },
        send: (request) => direct.send(request),
      };
      const sender = webhooks(slowTokens);
      const now = s.clock.now();
      const sending = sender.send(job, now);
      await vi.waitFor(() => expect(direct.tokenFetches).toHaveLength(1));
      sender.stop();
      expect(await sending).toBeNull();
      expect(direct.requests).toHaveLength(0);
      // Due again at once, for another dispatcher: not an attempt, no wait.
      expect(await s.dueAt(now, [job.delivery.id])).toEqual([job.delivery.id]);
      // Stopped: a send coming to its token now gives way at once, with no token request of its own.
      expect(await sender.send(job, now)).toBeNull();
      expect(direct.tokenFetches).toHaveLength(1);
      // The token request it gave up on still answers, and the token is shared: the next dispatcher sends with it.
      answerToken(tokenResult('token-late', 3_600));
      expect(await webhooks(slowTokens).send(job, now)).toEqual(OK);
      expect(direct.requests.map((r) => r.headers['authorization'])).toEqual(['Bearer token-late']);
      expect(direct.tokenFetches).toHaveLength(1);
    });

    it('the dispatcher stopping after a 401: no new token, the 401 is the attempt’s answer', async () => {
      const job = await withAuth();
      let sender: WebhookSender;
      const refusing: TokenSender = {
        fetchToken: (fetch) => direct.fetchToken(fetch),
        send: async (request) => {
          await direct.send(request);
          if (direct.requests.length === 1) return OK;
          sender.stop(); // the stop arrives while the webhook is on its way
          return { ok: false, status: 401, responseHead: 'expired', error: 'http_status: 401', durationMs: 5, sourceIp: '127.0.0.1' };
        },
      };
      sender = webhooks(refusing);
      expect(await sender.send(job, s.clock.now())).toEqual(OK); // token-1
      s.clock.advance(30_000); // old enough to be replaced after a 401, but for the stop
      expect(await sender.send(job, s.clock.now())).toMatchObject({ ok: false, status: 401, error: 'http_status: 401' });
      expect([direct.tokenFetches.length, direct.requests.length]).toEqual([1, 2]);
    });

    it('the dispatcher stopped: a send whose token is at hand gives way too (nothing goes out to an OAuth endpoint after the stop)', async () => {
      const job = await withAuth();
      const sender = webhooks();
      expect(await sender.send(job, s.clock.now())).toEqual(OK); // token-1, kept
      sender.stop();
      expect(await sender.send(job, s.clock.now())).toBeNull();
      expect([direct.tokenFetches.length, direct.requests.length]).toEqual([1, 1]);
    });

    it('keeps nothing of a token step once it has ended (a send counted while it waits, none after, however many)', async () => {
      const job = await withAuth();
      let answerToken: ((result: SendResult) => void) | undefined;
      const slowTokens: TokenSender = {
        fetchToken: () => new Promise((resolve) => (answerToken = resolve)),
        send: (request) => direct.send(request),
      };
      const sender = webhooks(slowTokens);
      const sending = sender.send(job, s.clock.now());
      await vi.waitFor(() => expect(answerToken).toBeDefined());
      expect(sender.waitingForToken).toBe(1);
      answerToken!(tokenResult('token-1', 3_600));
      expect(await sending).toEqual(OK);
      for (let i = 0; i < 200; i++) await sender.send(job, s.clock.now());
      expect(sender.waitingForToken).toBe(0);
      expect(direct.requests).toHaveLength(201);
    });

    it('the dispatcher stopping does not hold back a send without OAuth', async () => {
      const sender = webhooks();
      sender.stop();
      expect(await sender.send(await claimed(), s.clock.now())).toEqual(OK);
      expect(direct.requests).toHaveLength(1);
    });

    it('a fixed_ip endpoint’s token comes through the relay too, never directly', async () => {
      const job = await withAuth({ fixedIp: true });
      expect(await webhooks().send(job, s.clock.now())).toEqual(OK);
      expect([relay.tokenFetches.length, direct.tokenFetches.length]).toEqual([1, 0]);
      expect(relay.requests[0]!.headers['authorization']).toBe('Bearer token-1');
    });

    it('a client secret this key ring does not open: put off like a signing secret, no token request', async () => {
      const { t, endpoint } = await s.endpoint();
      const other = new SecretBox(Buffer.alloc(32, 9));
      await s.store.endpoints.update(t, endpoint.id, {
        auth: {
          type: 'oauth2_client_credentials',
          tokenUrl: 'https://auth.acme.example/t',
          clientId: 'c',
          sealedSecret: other.seal('x', endpoint.id),
          scope: null,
          audience: null,
          tokenAuthMethod: 'client_secret_basic',
        },
      });
      const job = await s.claim((await s.due(t))[0]!);
      expect(await webhooks().send(job, s.clock.now())).toBeNull();
      expect([direct.tokenFetches.length, direct.requests.length]).toEqual([0, 0]);
    });
  });
});

describe('WebhookSender: an endpoint’s transformation', () => {
  const RENAME = `function handler(webhook) {
    webhook.payload = { renamed: true, was: webhook.payload };
    webhook.headers['x-tenant'] = 'acme';
    webhook.url = webhook.url + '?v=2';
    return webhook;
  }`;

  it('sends what the code returned: the payload as the body’s data, signed over it; its headers and URL', async () => {
    const job = await claimed({ transformation: storedTransformation({ code: RENAME, enabled: true }) });
    expect(await webhooks().send(job, s.clock.now())).toEqual({ ...OK, url: `${job.endpoint.url}?v=2` });
    const sent = direct.requests[0]!;
    expect(JSON.parse(sent.body).data).toEqual({ renamed: true, was: JSON.parse(job.message.payload) });
    expect(sent.url).toBe(`${job.endpoint.url}?v=2`);
    expect(sent.headers).toMatchObject({ 'x-tenant': 'acme', 'webhook-id': job.message.id });
    expect(await s.metric('wirehook_transformations_total', { result: 'send' })).toBe(1);
  });

  it("waits for a sandbox thread in its tenant's turn, as a send of its endpoint (turns go by tenant, then endpoint)", async () => {
    const job = await claimed({ transformation: storedTransformation({ code: RENAME, enabled: true }) });
    const run = vi.spyOn(transforms, 'run');
    try {
      await webhooks().send(job, s.clock.now());
      expect(run).toHaveBeenCalledWith(RENAME, expect.anything(), expect.any(Number), { tenant: job.tenant, endpointId: job.endpoint.id, simulation: false });
    } finally {
      run.mockRestore();
    }
  });

  it('enabled: false sends the webhook as if there were none', async () => {
    const job = await claimed({ transformation: storedTransformation({ code: RENAME, enabled: false }) });
    expect(await webhooks().send(job, s.clock.now())).toEqual(OK);
    expect(JSON.parse(direct.requests[0]!.body).data).toEqual(JSON.parse(job.message.payload));
  });

  it('a cancel sends nothing: the cancelled result', async () => {
    const job = await claimed({ transformation: storedTransformation({ code: 'function handler() { return { cancel: true } }', enabled: true }) });
    expect(await webhooks().send(job, s.clock.now())).toMatchObject({ ok: false, status: null, error: CANCELLED_ATTEMPT_ERROR });
    expect(direct.requests).toHaveLength(0);
  });

  it('code that throws, or returns a URL or header the rules refuse, is a transformation failure and sends nothing', async () => {
    const cases: [string, RegExp][] = [
      ['function handler(w) {\n  throw new Error("no");\n}', /^transformation: Error: no \(line 2, column \d+\)$/],
      ["function handler(w) { w.url = 'http://hooks.acme.example/'; return w }", /^transformation: the returned url .* is refused: .*https/],
      ["function handler(w) { w.headers['Webhook-Signature'] = 'v1,x'; return w }", /^transformation: the returned headers are refused: /],
    ];
    for (const [code, error] of cases) {
      const job = await claimed({ transformation: storedTransformation({ code, enabled: true }) });
      expect(await webhooks().send(job, s.clock.now())).toMatchObject({ ok: false, status: null, error: expect.stringMatching(error) });
    }
    expect(direct.requests).toHaveLength(0);
  });

  it('an endpoint with auth: its code may move the path, not the origin (its OAuth token goes only there); no token is fetched for a refused one', async () => {
    const moving = async (to: string) => {
      const code = `function handler(w) { w.url = ${JSON.stringify(to)}; return w }`;
      const { t, endpoint } = await s.endpoint({ transformation: storedTransformation({ code, enabled: true }) });
      await s.withOAuth(t, endpoint);
      const [id] = await s.due(t);
      return s.claim(id!);
    };
    const elsewhere = await moving('https://collector.evil.example/in');
    const origin = new URL(elsewhere.endpoint.url).origin;
    expect(await webhooks().send(elsewhere, s.clock.now())).toMatchObject({
      ok: false,
      status: null,
      error:
        `transformation: the returned url https://collector.evil.example/in is at another origin than the endpoint's (${origin}): ` +
        'an endpoint with auth sends its OAuth token only there',
    });
    expect(direct.requests).toHaveLength(0);
    expect(direct.tokenFetches).toHaveLength(0);
    // The same origin, another path: sent, with its token.
    const samePlace = await moving(`${origin}/v2/in`);
    expect(await webhooks().send(samePlace, s.clock.now())).toMatchObject({ ok: true });
    expect(direct.requests.map((r) => [r.url, r.headers['authorization']])).toEqual([[`${origin}/v2/in`, 'Bearer token-1']]);
  });

  it('a listener endpoint’s code changes its payload (its http URL is not refused), and may not move its URL', async () => {
    const keep = await claimed({
      type: 'listen',
      url: 'http://localhost:3000/webhook',
      transformation: storedTransformation({ code: 'function handler(w) { w.payload = { ok: 1 }; return w }', enabled: true }),
    });
    const listenSender = new FakeSender();
    const sender = webhooks(direct, { listen: listenSender });
    expect(await sender.send(keep, s.clock.now())).toMatchObject({ error: null });
    expect(JSON.parse(listenSender.requests[0]!.body).data).toEqual({ ok: 1 });
    const job = await claimed({ type: 'listen', transformation: storedTransformation({ code: RENAME, enabled: true }) });
    expect(await webhooks().send(job, s.clock.now())).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^transformation: a listener endpoint's url cannot be changed/),
    });
  });
});

describe('WebhookSender: a transformation’s code is read once per change, not carried by each job', () => {
  it('reads the code at the first send and again only when its hash changes; a removed one sends untransformed', async () => {
    const first = storedTransformation({ code: 'function handler(w) { w.payload = { v: 1 }; return w }', enabled: true });
    const { t, endpoint } = await s.endpoint({ transformation: first });
    const reads: string[] = [];
    // The store as the sender reads it: only a transformation's code, counted.
    const endpoints = s.store.endpoints;
    const store = {
      endpoints: {
        transformation: (tenant: typeof t, id: typeof endpoint.id) => {
          reads.push(id);
          return endpoints.transformation(tenant, id);
        },
      },
    } as unknown as Pick<Store, 'endpoints'>;
    const sender = webhooks(direct, { store });
    const sendNext = async () => {
      const [id] = await s.due(t);
      const sent = await sender.send(await s.claim(id!), s.clock.now());
      expect(sent?.error ?? null).toBeNull();
      return JSON.parse(direct.requests.at(-1)!.body).data;
    };
    expect(await sendNext()).toEqual({ v: 1 });
    expect(await sendNext()).toEqual({ v: 1 });
    expect(reads).toEqual([endpoint.id]);
    await s.store.endpoints.update(t, endpoint.id, {
      transformation: storedTransformation({ code: 'function handler(w) { w.payload = { v: 2 }; return w }', enabled: true }),
    });
    expect(await sendNext()).toEqual({ v: 2 });
    expect(await sendNext()).toEqual({ v: 2 });
    expect(reads).toEqual([endpoint.id, endpoint.id]);
    await s.store.endpoints.update(t, endpoint.id, { transformation: null });
    expect(await sendNext()).not.toHaveProperty('v');
  });
});

describe('WebhookSender: a transformation that cannot be run for a reason of ours is put off, never an attempt', () => {
  it('the store failing to give the code, the sandbox closed, or the transformation gone since the claim: null, due a second later', async () => {
    const transformation = storedTransformation({ code: 'function handler(w) { return w }', enabled: true });
    const failing = { endpoints: { transformation: () => Promise.reject(new Error('store down')) } } as unknown as Pick<Store, 'endpoints'>;
    const closed = new TransformRunner();
    await closed.close();
    const cases: [string, () => WebhookSender, (t: Awaited<ReturnType<typeof s.endpoint>>) => Promise<void>][] = [
      ['store', () => webhooks(direct, { store: failing }), async () => {}],
      ['closed', () => new WebhookSender({ ...senderDeps(), transforms: closed, store: s.store }), async () => {}],
      ['removed', () => webhooks(), async ({ t, endpoint }) => void (await s.store.endpoints.update(t, endpoint.id, { transformation: null }))],
    ];
    for (const [name, make, meanwhile] of cases) {
      const scene = await s.endpoint({ transformation });
      const [id] = await s.due(scene.t);
      const job = await s.claim(id!);
      await meanwhile(scene);
      const now = s.clock.now();
      expect(await make().send(job, now), name).toBeNull();
      expect(await s.dueAt(now + 999, [job.delivery.id]), name).toEqual([]);
      expect(await s.dueAt(now + 1_000, [job.delivery.id]), name).toEqual([job.delivery.id]);
    }
    expect(direct.requests).toHaveLength(0);
    expect(await s.metric('wirehook_transformations_total', { result: 'put_off' })).toBe(3);
  });
});
