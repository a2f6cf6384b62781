import { randomUUID } from 'node:crypto';
import { newId, type EndpointAuth, type EndpointTls } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { SealedSecrets } from '../../src/ports/sealing-port.ts';
import type { Fixtures } from './fixtures.ts';

/** Contract of SealingRepo: key check values, and the walk and re-seal over every sealed secret. */
export function describeSealingContract(f: Fixtures): void {
  describe('sealing keys', () => {
    it('a key check is added once (the first stays), listed and removed', async () => {
      const keyId = `k-${randomUUID().slice(0, 8)}`;
      await f.store.sealing.addKeyCheck({ keyId, sealed: 'first', createdAt: 1 });
      await f.store.sealing.addKeyCheck({ keyId, sealed: 'second', createdAt: 2 });
      const mine = (await f.store.sealing.keyChecks()).filter((c) => c.keyId === keyId);
      expect(mine).toEqual([{ keyId, sealed: 'first', createdAt: 1 }]);
      await f.store.sealing.removeKeyCheck(keyId);
      expect((await f.store.sealing.keyChecks()).some((c) => c.keyId === keyId)).toBe(false);
    });

    it('the walk visits every endpoint once, with all its secrets, in pages; reseal replaces only the expected text', async () => {
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      const endpoint = f.endpoint(consumer.id);
      const t0 = f.clock.now();
      await f.store.endpoints.create(t, endpoint, { sealed: 'v3.a.old', createdAt: t0, expiresAt: null }, 20);
      await f.store.endpoints.rotateSecret(t, endpoint.id, { sealed: 'v3.a.new', createdAt: t0 + 1, expiresAt: null }, t0 + 1, t0 + 10, 3);

      const walk = async (pageSize: number): Promise<SealedSecrets[]> => {
        const all: SealedSecrets[] = [];
        for (let after: string | null = null; ; ) {
          const page = await f.store.sealing.sealedSecrets('endpoint_secrets', after, pageSize);
          if (page.length === 0) return all;
          expect(page.length).toBeLessThanOrEqual(pageSize);
          all.push(...page);
          after = page.at(-1)!.ownerId;
        }
      };
      const visited = await walk(2);
      const ids = visited.map((e) => e.ownerId);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual(ids);
      expect(visited.find((e) => e.ownerId === endpoint.id)?.sealed.sort()).toEqual(['v3.a.new', 'v3.a.old']);

      expect(await f.store.sealing.reseal('endpoint_secrets', endpoint.id, 'v3.a.old', 'v3.b.old')).toBe(true);
      expect(await f.store.sealing.reseal('endpoint_secrets', endpoint.id, 'v3.a.old', 'v3.b.again')).toBe(false); // no longer what it was
      const after = (await walk(50)).find((e) => e.ownerId === endpoint.id);
      expect(after?.sealed.sort()).toEqual(['v3.a.new', 'v3.b.old']);
      // The secrets the API reads are the re-sealed ones, with their times unchanged.
      const secrets = await f.store.endpoints.secrets(t, endpoint.id, t0 + 2);
      expect(secrets.map((s) => [s.sealed, s.createdAt])).toEqual([
        ['v3.a.new', t0 + 1],
        ['v3.b.old', t0],
      ]);
    });

    it("walks endpoints' sealed headers across tenants (none without headers); reseal replaces only the expected text, keeping what is shown", async () => {
      const [t1, t2] = [await f.tenant(), await f.tenant()];
      const [c1, c2] = [await f.consumer(t1), await f.consumer(t2)];
      const shown = { 'x-api-key': '…c0de', 'x.tenant': '…' };
      const first = await f.createEndpoint(t1, c1.id, { headers: { sealed: 'v3.a.headers', shown } });
      const none = await f.createEndpoint(t1, c1.id, { headers: null });
      const removed = await f.createEndpoint(t1, c1.id, { headers: { sealed: 'v3.a.removed', shown } });
      await f.store.endpoints.update(t1, removed.id, { headers: null });
      const other = await f.createEndpoint(t2, c2.id, { headers: { sealed: 'v3.a.other', shown: {} } });

      const walk = async (pageSize: number): Promise<SealedSecrets[]> => {
        const all: SealedSecrets[] = [];
        for (let after: string | null = null; ; ) {
          const page = await f.store.sealing.sealedSecrets('endpoint_headers', after, pageSize);
          if (page.length === 0) return all;
          expect(page.length).toBeLessThanOrEqual(pageSize);
          all.push(...page);
          after = page.at(-1)!.ownerId;
        }
      };
      const mine = new Set<string>([first.id, none.id, removed.id, other.id]);
      const visited = await walk(1);
      const ids = visited.map((e) => e.ownerId);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual(ids);
      expect(visited.filter((e) => mine.has(e.ownerId))).toEqual([
        { ownerId: first.id, sealed: ['v3.a.headers'] },
        { ownerId: other.id, sealed: ['v3.a.other'] },
      ]);
      expect(await f.store.sealing.sealedSecrets('endpoint_headers', null, 0)).toEqual([]);

      expect(await f.store.sealing.reseal('endpoint_headers', first.id, 'v3.a.headers', 'v3.b.headers')).toBe(true);
      expect(await f.store.sealing.reseal('endpoint_headers', first.id, 'v3.a.headers', 'v3.c.headers')).toBe(false); // no longer what it was
      expect(await f.store.sealing.reseal('endpoint_headers', none.id, 'v3.a.headers', 'v3.b.headers')).toBe(false); // it has none
      expect(await f.store.sealing.reseal('endpoint_headers', removed.id, 'v3.a.removed', 'v3.b.removed')).toBe(false);
      // The headers the API and the dispatcher read are the re-sealed ones, shown as before.
      expect((await f.store.endpoints.get(t1, first.id))?.headers).toEqual({ sealed: 'v3.b.headers', shown });
      expect((await f.store.endpoints.get(t1, none.id))?.headers).toBeNull();
      expect((await f.store.endpoints.get(t1, removed.id))?.headers).toBeNull();
      expect((await f.store.endpoints.get(t2, other.id))?.headers).toEqual({ sealed: 'v3.a.other', shown: {} });
      expect((await walk(50)).filter((e) => mine.has(e.ownerId))).toEqual([
        { ownerId: first.id, sealed: ['v3.b.headers'] },
        { ownerId: other.id, sealed: ['v3.a.other'] },
      ]);
      // The endpoint's signing secrets are another column: untouched.
      expect((await f.store.endpoints.secrets(t1, first.id, f.clock.now())).map((s) => s.sealed)).toEqual(['v1.first']);
    });

    it("walks endpoints' sealed client certificate keys across tenants (none without one); reseal replaces only the expected key", async () => {
      const [t1, t2] = [await f.tenant(), await f.tenant()];
      const [c1, c2] = [await f.consumer(t1), await f.consumer(t2)];
      const tls = (sealedKey: string): EndpointTls => ({
        certificate: '-----BEGIN CERTIFICATE-----\nMIIBclient\n-----END CERTIFICATE-----\n',
        sealedKey,
        serverCa: '-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n',
        info: { subject: 'CN=client', issuer: 'CN=ca', notAfter: 1_900_000_000_000, fingerprintSha256: 'AB:CD', serverCaSubject: 'CN=ca' },
      });
      const headers = { sealed: 'v3.a.headers', shown: { 'x-api-key': '…c0de' } };
      const first = await f.createEndpoint(t1, c1.id, { tls: tls('v3.a.key'), headers });
      const none = await f.createEndpoint(t1, c1.id, { tls: null, headers });
      const removed = await f.createEndpoint(t1, c1.id, { tls: tls('v3.a.removed') });
      await f.store.endpoints.update(t1, removed.id, { tls: null });
      const other = await f.createEndpoint(t2, c2.id, { tls: tls('v3.a.other') });
      const second = await f.createEndpoint(t1, c1.id, { tls: tls('v3.a.second') });

      const walk = async (pageSize: number): Promise<SealedSecrets[]> => {
        const all: SealedSecrets[] = [];
        for (let after: string | null = null; ; ) {
          const page = await f.store.sealing.sealedSecrets('endpoint_tls_keys', after, pageSize);
          if (page.length === 0) return all;
          expect(page.length).toBeLessThanOrEqual(pageSize);
          all.push(...page);
          after = page.at(-1)!.ownerId;
        }
      };
      const mine = new Set<string>([first.id, none.id, removed.id, other.id, second.id]);
      for (const pageSize of [1, 2]) {
        const visited = await walk(pageSize);
        const ids = visited.map((e) => e.ownerId);
        expect(new Set(ids).size).toBe(ids.length);
        expect([...ids].sort()).toEqual(ids);
        expect(visited.filter((e) => mine.has(e.ownerId))).toEqual([
          { ownerId: first.id, sealed: ['v3.a.key'] },
          { ownerId: other.id, sealed: ['v3.a.other'] },
          { ownerId: second.id, sealed: ['v3.a.second'] },
        ]);
      }
      expect(await f.store.sealing.sealedSecrets('endpoint_tls_keys', null, 0)).toEqual([]);

      expect(await f.store.sealing.reseal('endpoint_tls_keys', first.id, 'v3.a.key', 'v3.b.key')).toBe(true);
      expect(await f.store.sealing.reseal('endpoint_tls_keys', first.id, 'v3.a.key', 'v3.c.key')).toBe(false); // no longer what it was
      expect(await f.store.sealing.reseal('endpoint_tls_keys', none.id, 'v3.a.key', 'v3.b.key')).toBe(false); // it has none
      expect(await f.store.sealing.reseal('endpoint_tls_keys', removed.id, 'v3.a.removed', 'v3.b.removed')).toBe(false);
      // What the API and the dispatcher read: the re-sealed key, the certificate, serverCa and info as before.
      expect((await f.store.endpoints.get(t1, first.id))?.tls).toEqual(tls('v3.b.key'));
      expect((await f.store.endpoints.get(t1, none.id))?.tls).toBeNull();
      expect((await f.store.endpoints.get(t1, removed.id))?.tls).toBeNull();
      expect((await f.store.endpoints.get(t2, other.id))?.tls).toEqual(tls('v3.a.other'));
      expect((await walk(50)).filter((e) => mine.has(e.ownerId))).toEqual([
        { ownerId: first.id, sealed: ['v3.b.key'] },
        { ownerId: other.id, sealed: ['v3.a.other'] },
        { ownerId: second.id, sealed: ['v3.a.second'] },
      ]);
      // The endpoint's headers and signing secrets are other columns: untouched.
      expect((await f.store.endpoints.get(t1, first.id))?.headers).toEqual(headers);
      expect((await f.store.endpoints.secrets(t1, first.id, f.clock.now())).map((s) => s.sealed)).toEqual(['v1.first']);
    });

    it("walks endpoints' sealed OAuth client secrets across tenants (none without credentials); reseal replaces only the expected secret", async () => {
      const [t1, t2] = [await f.tenant(), await f.tenant()];
      const [c1, c2] = [await f.consumer(t1), await f.consumer(t2)];
      const auth = (sealedSecret: string): EndpointAuth => ({
        type: 'oauth2_client_credentials',
        tokenUrl: 'https://auth.example/token',
        clientId: 'client-1',
        sealedSecret,
        scope: 'hooks',
        audience: null,
        tokenAuthMethod: 'client_secret_post',
      });
      const first = await f.createEndpoint(t1, c1.id, { auth: auth('v3.a.secret') });
      const none = await f.createEndpoint(t1, c1.id, { auth: null });
      const removed = await f.createEndpoint(t1, c1.id, { auth: auth('v3.a.removed') });
      await f.store.endpoints.update(t1, removed.id, { auth: null });
      const other = await f.createEndpoint(t2, c2.id, { auth: auth('v3.a.other') });
      const walk = async (pageSize: number): Promise<SealedSecrets[]> => {
        const all: SealedSecrets[] = [];
        for (let after: string | null = null; ; ) {
          const page = await f.store.sealing.sealedSecrets('endpoint_auth_secrets', after, pageSize);
          if (page.length === 0) return all;
          expect(page.length).toBeLessThanOrEqual(pageSize);
          all.push(...page);
          after = page.at(-1)!.ownerId;
        }
      };
      const mine = new Set<string>([first.id, none.id, removed.id, other.id]);
      for (const pageSize of [1, 3]) {
        expect((await walk(pageSize)).filter((e) => mine.has(e.ownerId))).toEqual([
          { ownerId: first.id, sealed: ['v3.a.secret'] },
          { ownerId: other.id, sealed: ['v3.a.other'] },
        ]);
      }
      expect(await f.store.sealing.reseal('endpoint_auth_secrets', first.id, 'v3.a.secret', 'v3.b.secret')).toBe(true);
      expect(await f.store.sealing.reseal('endpoint_auth_secrets', first.id, 'v3.a.secret', 'v3.c.secret')).toBe(false); // no longer what it was
      expect(await f.store.sealing.reseal('endpoint_auth_secrets', none.id, 'v3.a.secret', 'v3.b.secret')).toBe(false); // it has none
      expect(await f.store.sealing.reseal('endpoint_auth_secrets', removed.id, 'v3.a.removed', 'v3.b.removed')).toBe(false);
      // The rest of the credentials stay as they were.
      expect((await f.store.endpoints.get(t1, first.id))?.auth).toEqual(auth('v3.b.secret'));
      expect((await f.store.endpoints.get(t1, removed.id))?.auth).toBeNull();
      expect((await f.store.endpoints.get(t2, other.id))?.auth).toEqual(auth('v3.a.other'));
    });

    it("walks alert targets' sealed secrets (targets without one are left out); reseal replaces only the expected text", async () => {
      const org = await f.org();
      f.clock.advance(1_000);
      const id = newId('alertTarget', f.clock);
      const base = { url: 'https://hooks.example/a', address: null, createdAt: f.clock.now() };
      await f.store.alerts.createTarget({ orgId: org.id, env: 'live' }, { ...base, id, type: 'webhook', sealedSecret: 'v3.a.target' });
      f.clock.advance(1_000);
      const chat = newId('alertTarget', f.clock);
      await f.store.alerts.createTarget({ orgId: org.id, env: 'live' }, { ...base, id: chat, type: 'chat', sealedSecret: null });
      const all: SealedSecrets[] = [];
      for (let after: string | null = null; ; ) {
        const page = await f.store.sealing.sealedSecrets('alert_target_secrets', after, 1);
        if (page.length === 0) break;
        all.push(...page);
        after = page.at(-1)!.ownerId;
      }
      expect(all.find((e) => e.ownerId === id)?.sealed).toEqual(['v3.a.target']);
      expect(all.some((e) => e.ownerId === chat)).toBe(false);
      expect(await f.store.sealing.reseal('alert_target_secrets', id, 'v3.a.target', 'v3.b.target')).toBe(true);
      expect(await f.store.sealing.reseal('alert_target_secrets', id, 'v3.a.target', 'v3.c.target')).toBe(false);
      expect((await f.store.alerts.targets({ orgId: org.id, env: 'live' })).find((t) => t.id === id)?.sealedSecret).toBe('v3.b.target');
    });
  });
}
