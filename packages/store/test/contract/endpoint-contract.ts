import {
  InvalidError,
  newId,
  NotFoundError,
  storedTransformation,
  type Endpoint,
  type EndpointAuth,
  type EndpointHeaders,
  type EndpointId,
  type EndpointTls,
} from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { EndpointPatch } from '../../src/ports/endpoint-port.ts';
import type { Fixtures } from './fixtures.ts';
import { MessageFixtures } from './message-fixtures.ts';

// Every patchable field, to a new value and (where allowed) to null. The fixture endpoint
// has every field set, so each patch changes something.
const PATCHES: Array<[string, EndpointPatch]> = [
  ['url', { url: 'https://other.acme.example/hook' }],
  ['eventTypes', { eventTypes: ['order.shipped'] }],
  ['eventTypes null', { eventTypes: null }],
  ['status', { status: 'disabled' }],
  ['description', { description: 'secondary' }],
  ['description null', { description: null }],
  ['retry', { retry: { count: 0, interval: 'progressive' } }],
  ['compatSignature', { compatSignature: { header: 'X-Sig', content: 'body', encoding: 'base64' } }],
  ['compatSignature null', { compatSignature: null }],
  ['disabledReason', { disabledReason: 'too many failures' }],
  ['disabledReason null', { disabledReason: null }],
  ['failingSince', { failingSince: 1_700_000_000_000 }],
  ['failingSince null', { failingSince: null }],
  ['rateLimit', { rateLimit: 10_000 }],
  ['rateLimit null', { rateLimit: null }],
  ['fixedIp', { fixedIp: false }],
  // The fixture endpoint has none: from none to a set here; replaced and removed below.
  ['headers', { headers: { sealed: 'v1.headers', shown: { 'x-api-key': '…c0de' } } }],
  // None on the fixture either: from none to a certificate here; replaced and removed below.
  ['tls', { tls: tlsOf('v1.tls-key', null) }],
  // None on the fixture either: from none to credentials here; replaced and removed below.
  ['auth', { auth: authOf('v1.client-secret', null) }],
];

/** OAuth client credentials as stored (the secret sealed; scope and audience optional). */
function authOf(sealedSecret: string, audience: string | null): EndpointAuth {
  return {
    type: 'oauth2_client_credentials',
    tokenUrl: 'https://auth.acme.example/oauth/token',
    clientId: 'wirehook-client',
    sealedSecret,
    scope: 'webhooks:write orders.read',
    audience,
    tokenAuthMethod: 'client_secret_basic',
  };
}

const AUTH: EndpointAuth = authOf('v1.sealed-secret', 'https://api.acme.example');

/** Custom headers as stored: names may hold `.` (an RFC 9110 token), which a document store must keep as one name. */
const HEADERS: EndpointHeaders = {
  sealed: 'v1.sealed-headers',
  shown: { 'x-api-key': '…c0de', authorization: '…9f3a', 'x.tenant': '…' },
};

/** A client certificate as stored (PEM text with line breaks; serverCa optional). */
function tlsOf(sealedKey: string, serverCa: string | null): EndpointTls {
  return {
    certificate: '-----BEGIN CERTIFICATE-----\nMIIBclient\n-----END CERTIFICATE-----\n',
    sealedKey,
    serverCa,
    info: {
      subject: 'CN=wirehook-client,O=Acme',
      issuer: 'CN=Acme Client CA',
      notAfter: 1_900_000_000_000,
      fingerprintSha256: 'AB:CD:EF:01',
      serverCaSubject: serverCa === null ? null : 'CN=Acme Server CA',
    },
  };
}

const TLS: EndpointTls = tlsOf('v1.sealed-key', '-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n');

/** Contract of EndpointRepo, apart from secrets. */
export function describeEndpointContract(f: Fixtures): void {
  describe('endpoints', () => {
    it('creates an endpoint and gets it back field for field', async () => {
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      const endpoint = f.endpoint(consumer.id, { headers: HEADERS, tls: TLS });
      expect(await f.store.endpoints.create(t, endpoint, f.secret('v1.s'), 20)).toEqual(endpoint);
      expect(await f.store.endpoints.get(t, endpoint.id)).toEqual(endpoint);
    });

    it('keeps custom headers (sealed and shown) on create, get and list; one made without headers reads as none (null)', async () => {
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      const withHeaders = f.endpoint(consumer.id, { headers: HEADERS });
      const { headers: _none, ...absent } = f.endpoint(consumer.id);
      const none = f.endpoint(consumer.id, { headers: null });
      expect((await f.store.endpoints.create(t, withHeaders, f.secret('v1.s'), 20)).headers).toEqual(HEADERS);
      expect((await f.store.endpoints.create(t, absent, f.secret('v1.s'), 20)).headers).toBeNull();
      expect((await f.store.endpoints.create(t, none, f.secret('v1.s'), 20)).headers).toBeNull();
      expect(await f.store.endpoints.get(t, withHeaders.id)).toEqual(withHeaders);
      expect((await f.store.endpoints.get(t, absent.id))?.headers).toBeNull();
      expect((await f.store.endpoints.get(t, none.id))?.headers).toBeNull();
      expect((await f.store.endpoints.list(t, { consumerId: consumer.id })).map((e) => e.headers)).toEqual([HEADERS, null, null]);
      expect((await f.store.endpoints.list(t, {})).map((e) => e.headers)).toEqual([HEADERS, null, null]);
    });

    it('pages the tenant’s endpoints (or a consumer’s) by id after a cursor, up to a limit', async () => {
      const t = await f.tenant();
      const [a, b] = [await f.consumer(t, 'page-a'), await f.consumer(t, 'page-b')];
      const made = [f.endpoint(a.id), f.endpoint(b.id), f.endpoint(a.id)];
      for (const e of made) await f.store.endpoints.create(t, e, f.secret('v1.s'), 20);
      const ids = made.map((e) => e.id).sort();
      const page = async (filter: Parameters<typeof f.store.endpoints.list>[1]) => (await f.store.endpoints.list(t, filter)).map((e) => e.id);
      expect(await page({})).toEqual(ids);
      expect(await page({ limit: 2 })).toEqual(ids.slice(0, 2));
      expect(await page({ afterId: ids[1]! as never, limit: 2 })).toEqual(ids.slice(2));
      expect(await page({ afterId: ids[2]! as never })).toEqual([]);
      expect(await page({ limit: 0 })).toEqual([]);
      const ofA = made
        .filter((e) => e.consumerId === a.id)
        .map((e) => e.id)
        .sort();
      expect(await page({ consumerId: a.id, afterId: ofA[0]! as never })).toEqual(ofA.slice(1));
      await expect(f.store.endpoints.list(t, { limit: -1 })).rejects.toThrow(RangeError);
    });

    it('a claimed delivery’s job carries its endpoint’s headers', async () => {
      const m = new MessageFixtures(f);
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      await m.hook(t, consumer, { headers: HEADERS });
      const job = await m.claim(m.only(await m.send(t)));
      expect(job.endpoint.headers).toEqual(HEADERS);
    });

    it('keeps a client certificate (mutual TLS) on create, get and list; one made without reads as none (null)', async () => {
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      const withTls = f.endpoint(consumer.id, { tls: TLS });
      const { tls: _none, ...absent } = f.endpoint(consumer.id);
      const none = f.endpoint(consumer.id, { tls: null });
      const noCa = f.endpoint(consumer.id, { tls: tlsOf('v1.other-key', null) });
      expect((await f.store.endpoints.create(t, withTls, f.secret('v1.s'), 20)).tls).toEqual(TLS);
      expect((await f.store.endpoints.create(t, absent, f.secret('v1.s'), 20)).tls).toBeNull();
      expect((await f.store.endpoints.create(t, none, f.secret('v1.s'), 20)).tls).toBeNull();
      expect((await f.store.endpoints.create(t, noCa, f.secret('v1.s'), 20)).tls).toEqual(noCa.tls);
      expect(await f.store.endpoints.get(t, withTls.id)).toEqual(withTls);
      expect((await f.store.endpoints.get(t, absent.id))?.tls).toBeNull();
      expect((await f.store.endpoints.get(t, none.id))?.tls).toBeNull();
      expect(await f.store.endpoints.get(t, noCa.id)).toEqual(noCa);
      const all = [TLS, null, null, noCa.tls];
      expect((await f.store.endpoints.list(t, { consumerId: consumer.id })).map((e) => e.tls)).toEqual(all);
      expect((await f.store.endpoints.list(t, {})).map((e) => e.tls)).toEqual(all);
    });

    it('a claimed delivery’s job carries its endpoint’s client certificate', async () => {
      const m = new MessageFixtures(f);
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      await m.hook(t, consumer, { tls: TLS });
      const job = await m.claim(m.only(await m.send(t)));
      expect(job.endpoint.tls).toEqual(TLS);
    });

    it('keeps OAuth client credentials on create, get, list and a claimed job; one made without reads as none (null)', async () => {
      const m = new MessageFixtures(f);
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      const withAuth = f.endpoint(consumer.id, { auth: AUTH });
      const { auth: _none, ...absent } = f.endpoint(consumer.id);
      const post: EndpointAuth = { ...authOf('v1.other', null), scope: null, tokenAuthMethod: 'client_secret_post' };
      const other = f.endpoint(consumer.id, { auth: post });
      expect((await f.store.endpoints.create(t, withAuth, f.secret('v1.s'), 20)).auth).toEqual(AUTH);
      expect((await f.store.endpoints.create(t, absent, f.secret('v1.s'), 20)).auth).toBeNull();
      expect((await f.store.endpoints.create(t, other, f.secret('v1.s'), 20)).auth).toEqual(post);
      expect(await f.store.endpoints.get(t, withAuth.id)).toEqual(withAuth);
      expect((await f.store.endpoints.get(t, absent.id))?.auth).toBeNull();
      expect((await f.store.endpoints.list(t, {})).map((e) => e.auth)).toEqual([AUTH, null, post]);
      const t2 = await f.tenant();
      await m.hook(t2, await f.consumer(t2), { auth: AUTH });
      expect((await m.claim(m.only(await m.send(t2)))).endpoint.auth).toEqual(AUTH);
    });

    it('auth: left alone when not given, replaced as a whole, removed by null; other endpoints untouched', async () => {
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      const target = await f.createEndpoint(t, consumer.id, { auth: AUTH });
      const bystander = await f.createEndpoint(t, consumer.id, { auth: AUTH });
      expect((await f.store.endpoints.update(t, target.id, { description: 'renamed' }))?.auth).toEqual(AUTH);
      const other = authOf('v1.new-secret', null);
      expect(await f.store.endpoints.update(t, target.id, { auth: other })).toEqual({ ...target, description: 'renamed', auth: other });
      expect((await f.store.endpoints.update(t, target.id, { auth: null }))?.auth).toBeNull();
      expect((await f.store.endpoints.get(t, target.id))?.auth).toBeNull();
      expect(await f.store.endpoints.get(t, bystander.id)).toEqual(bystander);
    });

    it('keeps a transformation on create, get, list, update and a claimed job; null removes it; one made without reads as none (null)', async () => {
      const m = new MessageFixtures(f);
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      const code = `function handler(webhook) {\n  webhook.payload = { renamed: webhook.payload.n, note: 'ünïcode ✓' };\n  return webhook;\n}`;
      const transformation = storedTransformation({ code, enabled: true });
      const withCode = f.endpoint(consumer.id, { transformation });
      const { transformation: _none, ...absent } = f.endpoint(consumer.id);
      expect((await f.store.endpoints.create(t, withCode, f.secret('v1.s'), 20)).transformation).toEqual(transformation);
      expect((await f.store.endpoints.create(t, absent, f.secret('v1.s'), 20)).transformation).toBeNull();
      expect(await f.store.endpoints.get(t, withCode.id)).toEqual(withCode);
      expect((await f.store.endpoints.list(t, {})).map((e) => e.transformation)).toEqual([transformation, null]);
      const disabled = storedTransformation({ code: 'function handler(w) { return { cancel: true } }', enabled: false });
      expect((await f.store.endpoints.update(t, withCode.id, { description: 'renamed' }))?.transformation).toEqual(transformation);
      expect((await f.store.endpoints.update(t, withCode.id, { transformation: disabled }))?.transformation).toEqual(disabled);
      expect((await f.store.endpoints.get(t, absent.id))?.transformation).toBeNull();
      expect((await f.store.endpoints.update(t, withCode.id, { transformation: null }))?.transformation).toBeNull();
      const t2 = await f.tenant();
      await m.hook(t2, await f.consumer(t2), { transformation });
      // A claimed job carries whether it runs and its hash, never the code (read once per change: transformation()).
      const job = await m.claim(m.only(await m.send(t2)));
      expect(job.endpoint.transformation).toEqual({ enabled: true, sha256: transformation.sha256 });
      expect(JSON.stringify(job)).not.toContain('handler');
      expect(await f.store.endpoints.transformation(t2, job.endpoint.id)).toEqual(transformation);
      expect(await f.store.endpoints.transformation(t, absent.id)).toBeNull();
      expect(await f.store.endpoints.transformation(t2, withCode.id)).toBeNull(); // another tenant's
    });

    it('walks the client certificates expiring in [from, to) of every tenant by expiry then id, a page at a time, ties across pages kept', async () => {
      const t1 = await f.tenant();
      const t2 = await f.tenant();
      const c1 = await f.consumer(t1);
      const c2 = await f.consumer(t2);
      const base = 4_000_000_000_000 + Math.floor(Math.random() * 1e9) * 1_000;
      const at = (days: number, id: string) => ({ ...tlsOf(`v1.${id}`, null), info: { ...tlsOf('x', null).info, notAfter: base + days * 86_400_000 } });
      const make = async (t: typeof t1, consumerId: typeof c1.id, days: number | null, name: string) => {
        const e = f.endpoint(consumerId, days === null ? {} : { tls: at(days, name) });
        await f.store.endpoints.create(t, e, f.secret('v1.s'), 20);
        return e;
      };
      await make(t1, c1.id, -1, 'before'); // expired before the window: not read
      const a = await make(t1, c1.id, 3, 'a');
      const b = await make(t2, c2.id, 3, 'b'); // the same millisecond as a: a tie
      const c = await make(t2, c2.id, 13, 'c');
      await make(t1, c1.id, 14, 'edge'); // at `to`: outside [from, to)
      await make(t1, c1.id, null, 'none'); // no certificate
      const from = base;
      const to = base + 14 * 86_400_000;
      const ids = (rows: { id: EndpointId }[]) => rows.map((r) => r.id);
      const tieOrder = [a.id, b.id].sort();
      const all = await f.store.endpoints.certificatesExpiring(from, to, null, 100);
      expect(ids(all)).toEqual([...tieOrder, c.id]);
      expect(all.find((r) => r.id === a.id)).toEqual({ tenant: t1, id: a.id, notAfter: base + 3 * 86_400_000 });
      // One a page: the tie's second comes on the next page, after the cursor's id.
      const first = await f.store.endpoints.certificatesExpiring(from, to, null, 1);
      const second = await f.store.endpoints.certificatesExpiring(from, to, { notAfter: first[0]!.notAfter, id: first[0]!.id }, 1);
      const third = await f.store.endpoints.certificatesExpiring(from, to, { notAfter: second[0]!.notAfter, id: second[0]!.id }, 1);
      const done = await f.store.endpoints.certificatesExpiring(from, to, { notAfter: third[0]!.notAfter, id: third[0]!.id }, 1);
      expect([...ids(first), ...ids(second), ...ids(third)]).toEqual([...tieOrder, c.id]);
      expect(done).toEqual([]);
    });

    it('lists one tenant’s client certificates expiring in [from, to) by expiry then id, at most limit: no other tenant’s or environment’s', async () => {
      const t = await f.tenant();
      const other = await f.tenant();
      const test = { ...t, env: 'test' as const };
      const [c, co, ct] = [await f.consumer(t), await f.consumer(other), await f.consumer(test)];
      const base = 4_100_000_000_000 + Math.floor(Math.random() * 1e9) * 1_000;
      const DAY = 86_400_000;
      const expiring = (days: number) => ({ ...tlsOf('v1.k', null), info: { ...tlsOf('x', null).info, notAfter: base + days * DAY } });
      const make = async (tenant: typeof t, consumerId: typeof c.id, days: number | null, overrides: Partial<Endpoint> = {}) =>
        f.createEndpoint(tenant, consumerId, { ...(days === null ? {} : { tls: expiring(days) }), ...overrides });
      await make(t, c.id, -1); // expired before the window
      const late = await make(t, c.id, 10);
      const soon = await make(t, c.id, 2, { status: 'paused', failingSince: null });
      const tie = await make(t, c.id, 10); // the same millisecond as `late`, a later id
      await make(t, c.id, 14); // at `to`: outside [from, to)
      await make(t, c.id, null); // no certificate
      await make(other, co.id, 3); // another organization
      const inTest = await make(test, ct.id, 3); // the same organization's other environment
      const from = base;
      const to = base + 14 * DAY;
      const mine = await f.store.endpoints.certificatesExpiringOf(t, from, to, 100);
      expect(mine.map((r) => r.id)).toEqual([soon.id, late.id, tie.id]);
      expect(mine[0]).toEqual({
        tenant: t,
        id: soon.id,
        consumerId: c.id,
        url: soon.url,
        status: 'paused',
        failingSince: null,
        subject: 'CN=wirehook-client,O=Acme',
        notAfter: base + 2 * DAY,
        fingerprintSha256: 'AB:CD:EF:01',
      });
      expect(mine[1]?.failingSince).toBe(late.failingSince);
      expect((await f.store.endpoints.certificatesExpiringOf(t, from, to, 2)).map((r) => r.id)).toEqual([soon.id, late.id]);
      expect((await f.store.endpoints.certificatesExpiringOf(test, from, to, 100)).map((r) => r.id)).toEqual([inTest.id]);
      // A certificate removed (tls null) is no longer listed; an endpoint deleted neither.
      await f.store.endpoints.update(t, late.id, { tls: null });
      await f.store.endpoints.delete(t, tie.id);
      expect((await f.store.endpoints.certificatesExpiringOf(t, from, to, 100)).map((r) => r.id)).toEqual([soon.id]);
      expect(await f.store.endpoints.certificatesExpiringOf(t, from, to, 0)).toEqual([]);
    });

    it('walks many endpoints sharing one certificate’s expiry (ties) a page at a time, each once, none skipped', async () => {
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      const base = 5_000_000_000_000 + Math.floor(Math.random() * 1e9) * 1_000;
      const shared = { ...tlsOf('v1.shared', null), info: { ...tlsOf('x', null).info, notAfter: base + 86_400_000 } };
      const made: EndpointId[] = [];
      for (let i = 0; i < 7; i++) made.push((await f.createEndpoint(t, consumer.id, { tls: shared })).id);
      const later = await f.createEndpoint(t, consumer.id, { tls: { ...shared, info: { ...shared.info, notAfter: base + 2 * 86_400_000 } } });
      const seen: EndpointId[] = [];
      let after: { notAfter: number; id: EndpointId } | null = null;
      for (let pages = 0; pages < 10; pages++) {
        const page = await f.store.endpoints.certificatesExpiring(base, base + 14 * 86_400_000, after, 3);
        expect(page.length).toBeLessThanOrEqual(3);
        if (page.length === 0) break;
        seen.push(...page.map((r) => r.id));
        after = { notAfter: page.at(-1)!.notAfter, id: page.at(-1)!.id };
      }
      expect(seen).toEqual([...[...made].sort(), later.id]);
    });

    it('keeps a listener endpoint’s type, and reads one made without a type as http', async () => {
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      const listener = f.endpoint(consumer.id, { type: 'listen', url: 'http://localhost:3000/webhook' });
      await f.store.endpoints.create(t, listener, f.secret('v1.s'), 20);
      const { type: _none, ...untyped } = f.endpoint(consumer.id);
      await f.store.endpoints.create(t, untyped, f.secret('v1.s'), 20);
      expect((await f.store.endpoints.get(t, listener.id))?.type).toBe('listen');
      expect((await f.store.endpoints.get(t, untyped.id))?.type).toBe('http');
      expect((await f.store.endpoints.list(t, { consumerId: consumer.id })).map((e) => e.type)).toEqual(['listen', 'http']);
    });

    it('pages every tenant’s listener endpoints by id (the janitor’s walk), never an http endpoint', async () => {
      const [t1, t2] = [await f.tenant(), await f.tenant()];
      const [c1, c2] = [await f.consumer(t1), await f.consumer(t2)];
      const mine = new Map<string, unknown>();
      for (const [t, c] of [
        [t1, c1],
        [t1, c1],
        [t2, c2],
      ] as const) {
        const listener = await f.createEndpoint(t, c.id, { type: 'listen', url: 'http://localhost:3000/webhook' });
        mine.set(listener.id, t);
      }
      const http = await f.createEndpoint(t1, c1.id, { type: 'http' });
      const seen: { tenant: unknown; id: string }[] = [];
      let after: string | null = null;
      for (;;) {
        const page = await f.store.endpoints.listeners(after as never, 2);
        expect(page.length).toBeLessThanOrEqual(2);
        if (page.length === 0) break;
        seen.push(...page);
        after = page.at(-1)!.id;
      }
      expect(seen.map((l) => l.id)).toEqual([...seen.map((l) => l.id)].sort());
      expect(seen.map((l) => l.id)).not.toContain(http.id);
      expect(seen.filter((l) => mine.has(l.id))).toEqual([...mine].map(([id, tenant]) => ({ id, tenant })).sort((a, b) => a.id.localeCompare(b.id)));
      expect(await f.store.endpoints.listeners(null, 0)).toEqual([]);
    });

    it('keeps null fields and fixedIp false', async () => {
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      const endpoint = await f.createEndpoint(t, consumer.id, {
        description: null,
        eventTypes: null,
        fixedIp: false,
        disabledReason: null,
        failingSince: null,
        compatSignature: null,
        status: 'paused',
      });
      expect(await f.store.endpoints.get(t, endpoint.id)).toEqual(endpoint);
      expect(endpoint).toMatchObject({ eventTypes: null, compatSignature: null, fixedIp: false, status: 'paused' });
    });

    it('stores the first secret with the endpoint', async () => {
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      const endpoint = f.endpoint(consumer.id);
      const secret = f.secret('v1.first-secret');
      await f.store.endpoints.create(t, endpoint, secret, 20);
      expect(await f.store.endpoints.secrets(t, endpoint.id, f.clock.now())).toEqual([secret]);
    });

    it('rejects an endpoint for an unknown consumer with NotFoundError', async () => {
      const t = await f.tenant();
      const endpoint = f.endpoint(newId('consumer', f.clock));
      await expect(f.store.endpoints.create(t, endpoint, f.secret('v1.s'), 20)).rejects.toBeInstanceOf(NotFoundError);
      expect(await f.store.endpoints.get(t, endpoint.id)).toBeNull();
    });

    it('returns null for an unknown endpoint', async () => {
      const t = await f.tenant();
      expect(await f.store.endpoints.get(t, newId('endpoint', f.clock))).toBeNull();
    });

    describe('cap per consumer', () => {
      it('rejects the endpoint past maxPerConsumer with InvalidError and stores nothing of it', async () => {
        const t = await f.tenant();
        const consumer = await f.consumer(t);
        for (let i = 0; i < 3; i++) await f.createEndpoint(t, consumer.id, {}, 'v1.s', 3);
        const rejected = f.endpoint(consumer.id);
        const attempt = f.store.endpoints.create(t, rejected, f.secret('v1.rejected'), 3);
        await expect(attempt).rejects.toBeInstanceOf(InvalidError);
        await expect(attempt).rejects.toThrow(`consumer ${consumer.id} already has 3 endpoints; the limit is 3`);
        expect(await f.store.endpoints.list(t, { consumerId: consumer.id })).toHaveLength(3);
        expect(await f.store.endpoints.get(t, rejected.id)).toBeNull();
        expect(await f.store.endpoints.secrets(t, rejected.id, f.clock.now())).toEqual([]);
        expect((await f.store.consumers.get(t, consumer.id))?.endpointCount).toBe(3);
      });

      it('counts each consumer on its own', async () => {
        const t = await f.tenant();
        const full = await f.consumer(t, 'full');
        const empty = await f.consumer(t, 'empty');
        await f.createEndpoint(t, full.id, {}, 'v1.s', 1);
        await expect(f.createEndpoint(t, full.id, {}, 'v1.s', 1)).rejects.toBeInstanceOf(InvalidError);
        await expect(f.createEndpoint(t, empty.id, {}, 'v1.s', 1)).resolves.toMatchObject({ consumerId: empty.id });
      });

      it('frees a slot when an endpoint is deleted', async () => {
        const t = await f.tenant();
        const consumer = await f.consumer(t);
        const first = await f.createEndpoint(t, consumer.id, {}, 'v1.s', 1);
        await f.store.endpoints.delete(t, first.id);
        await expect(f.createEndpoint(t, consumer.id, {}, 'v1.s', 1)).resolves.toMatchObject({ consumerId: consumer.id });
      });
    });

    it('lists oldest first, all of the tenant or one consumer', async () => {
      const t = await f.tenant();
      const a = await f.consumer(t, 'a');
      const b = await f.consumer(t, 'b');
      const a1 = await f.createEndpoint(t, a.id);
      const b1 = await f.createEndpoint(t, b.id);
      const a2 = await f.createEndpoint(t, a.id);
      expect(await f.store.endpoints.list(t, {})).toEqual([a1, b1, a2]);
      expect(await f.store.endpoints.list(t, { consumerId: a.id })).toEqual([a1, a2]);
      expect(await f.store.endpoints.list(t, { consumerId: b.id })).toEqual([b1]);
      expect(await f.store.endpoints.list(t, { consumerId: newId('consumer', f.clock) })).toEqual([]);
    });

    describe('update', () => {
      it.each(PATCHES)('sets %s and leaves the other fields', async (_field, patch) => {
        const t = await f.tenant();
        const consumer = await f.consumer(t);
        const before = await f.createEndpoint(t, consumer.id);
        const expected: Endpoint = { ...before, ...patch };
        expect(expected).not.toEqual(before);
        expect(await f.store.endpoints.update(t, before.id, patch)).toEqual(expected);
        expect(await f.store.endpoints.get(t, before.id)).toEqual(expected);
      });

      it('headers: left alone when not given, replaced as a whole set, removed by null; no other endpoint touched', async () => {
        const t = await f.tenant();
        const consumer = await f.consumer(t);
        const target = await f.createEndpoint(t, consumer.id, { headers: HEADERS });
        const bystander = await f.createEndpoint(t, consumer.id, { headers: HEADERS });
        expect((await f.store.endpoints.update(t, target.id, { description: 'renamed' }))?.headers).toEqual(HEADERS);
        expect((await f.store.endpoints.update(t, target.id, { headers: undefined, url: 'https://other.acme.example/hook' }))?.headers).toEqual(HEADERS);
        // A smaller set replaces the whole: no name of the old set stays.
        const fewer: EndpointHeaders = { sealed: 'v1.fewer', shown: { 'x-trace': '…' } };
        expect(await f.store.endpoints.update(t, target.id, { headers: fewer })).toEqual({
          ...target,
          description: 'renamed',
          url: 'https://other.acme.example/hook',
          headers: fewer,
        });
        expect((await f.store.endpoints.get(t, target.id))?.headers).toEqual(fewer);
        expect((await f.store.endpoints.update(t, target.id, { headers: null }))?.headers).toBeNull();
        expect((await f.store.endpoints.get(t, target.id))?.headers).toBeNull();
        expect((await f.store.endpoints.update(t, target.id, { headers: HEADERS }))?.headers).toEqual(HEADERS);
        expect(await f.store.endpoints.get(t, bystander.id)).toEqual(bystander);
      });

      it('tls: left alone when not given, replaced as a whole, removed by null; headers and other endpoints untouched', async () => {
        const t = await f.tenant();
        const consumer = await f.consumer(t);
        const target = await f.createEndpoint(t, consumer.id, { tls: TLS, headers: HEADERS });
        const bystander = await f.createEndpoint(t, consumer.id, { tls: TLS });
        expect((await f.store.endpoints.update(t, target.id, { description: 'renamed' }))?.tls).toEqual(TLS);
        expect((await f.store.endpoints.update(t, target.id, { tls: undefined, headers: null }))?.tls).toEqual(TLS);
        // Another certificate without a server CA replaces the whole: serverCa and its subject go.
        const other = tlsOf('v1.new-key', null);
        expect(await f.store.endpoints.update(t, target.id, { tls: other })).toEqual({ ...target, description: 'renamed', headers: null, tls: other });
        expect((await f.store.endpoints.get(t, target.id))?.tls).toEqual(other);
        expect((await f.store.endpoints.update(t, target.id, { tls: null }))?.tls).toBeNull();
        expect((await f.store.endpoints.get(t, target.id))?.tls).toBeNull();
        expect((await f.store.endpoints.update(t, target.id, { tls: TLS }))?.tls).toEqual(TLS);
        expect(await f.store.endpoints.get(t, bystander.id)).toEqual(bystander);
      });

      it('sets several fields at once and touches no other endpoint', async () => {
        const t = await f.tenant();
        const consumer = await f.consumer(t);
        const target = await f.createEndpoint(t, consumer.id);
        const bystander = await f.createEndpoint(t, consumer.id);
        const patch: EndpointPatch = { status: 'disabled', disabledReason: 'failing for 5 days', failingSince: null };
        expect(await f.store.endpoints.update(t, target.id, patch)).toEqual({ ...target, ...patch });
        expect(await f.store.endpoints.get(t, bystander.id)).toEqual(bystander);
      });

      it('hold: sets heldUntil, never shortens it, touches no other endpoint; no endpoint is no error', async () => {
        const t = await f.tenant();
        const consumer = await f.consumer(t);
        const target = await f.createEndpoint(t, consumer.id);
        const bystander = await f.createEndpoint(t, consumer.id);
        const until = f.clock.now() + 4_000;
        await f.store.endpoints.hold(t, target.id, until);
        await f.store.endpoints.hold(t, target.id, until - 1_000);
        expect(await f.store.endpoints.get(t, target.id)).toEqual({ ...target, heldUntil: until });
        await f.store.endpoints.hold(t, target.id, until + 1);
        expect((await f.store.endpoints.get(t, target.id))?.heldUntil).toBe(until + 1);
        expect(await f.store.endpoints.get(t, bystander.id)).toEqual(bystander);
        await expect(f.store.endpoints.hold(t, newId('endpoint', f.clock), until)).resolves.toBeUndefined();
      });

      it('returns the endpoint unchanged for an empty patch', async () => {
        const t = await f.tenant();
        const consumer = await f.consumer(t);
        const endpoint = await f.createEndpoint(t, consumer.id);
        expect(await f.store.endpoints.update(t, endpoint.id, {})).toEqual(endpoint);
      });

      it('returns null for an unknown endpoint, also for an empty patch', async () => {
        const t = await f.tenant();
        expect(await f.store.endpoints.update(t, newId('endpoint', f.clock), { status: 'paused' })).toBeNull();
        expect(await f.store.endpoints.update(t, newId('endpoint', f.clock), {})).toBeNull();
      });
    });

    describe('delete', () => {
      it('deletes the endpoint and its secrets, once', async () => {
        const t = await f.tenant();
        const consumer = await f.consumer(t);
        const doomed = await f.createEndpoint(t, consumer.id);
        const kept = await f.createEndpoint(t, consumer.id, {}, 'v1.kept');
        await f.store.endpoints.rotateSecret(t, doomed.id, f.secret('v1.second'), f.clock.now(), f.clock.now() + 60_000, 3);
        expect(await f.store.endpoints.delete(t, doomed.id)).toBe(true);
        expect(await f.store.endpoints.get(t, doomed.id)).toBeNull();
        expect(await f.store.endpoints.secrets(t, doomed.id, f.clock.now())).toEqual([]);
        expect(await f.store.endpoints.list(t, {})).toEqual([kept]);
        expect((await f.store.endpoints.secrets(t, kept.id, f.clock.now())).map((s) => s.sealed)).toEqual(['v1.kept']);
        expect(await f.store.endpoints.delete(t, doomed.id)).toBe(false);
        expect(await f.store.endpoints.rotateSecret(t, doomed.id, f.secret('v1.x'), f.clock.now(), f.clock.now(), 3)).toBe(false);
      });
    });
  });
}
