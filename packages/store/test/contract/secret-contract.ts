import { newId, type Endpoint, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { Fixtures } from './fixtures.ts';

const HOUR = 3_600_000;

/** Contract of EndpointRepo.rotateSecret and EndpointRepo.secrets. */
export function describeSecretContract(f: Fixtures): void {
  describe('signing secrets', () => {
    // An endpoint whose first secret, made at t0, expires `expiresIn` after it (null: never).
    const endpointWith = async (expiresIn: number | null): Promise<{ t: Tenant; endpoint: Endpoint; t0: number }> => {
      const t = await f.tenant();
      const consumer = await f.consumer(t);
      const endpoint = f.endpoint(consumer.id);
      const t0 = f.clock.now();
      const expiresAt = expiresIn === null ? null : t0 + expiresIn;
      await f.store.endpoints.create(t, endpoint, { sealed: 'v1.old', createdAt: t0, expiresAt }, 20);
      return { t, endpoint, t0 };
    };

    it('rotate puts the new secret first and keeps the old one valid until oldValidUntil', async () => {
      const { t, endpoint, t0 } = await endpointWith(null);
      const now = t0 + HOUR;
      const until = now + 24 * HOUR;
      const fresh = { sealed: 'v1.new', createdAt: now, expiresAt: null };
      expect(await f.store.endpoints.rotateSecret(t, endpoint.id, fresh, now, until, 3)).toBe(true);
      const old = { sealed: 'v1.old', createdAt: t0, expiresAt: until };
      expect(await f.store.endpoints.secrets(t, endpoint.id, now)).toEqual([fresh, old]);
      expect(await f.store.endpoints.secrets(t, endpoint.id, until - 1)).toEqual([fresh, old]);
      expect(await f.store.endpoints.secrets(t, endpoint.id, until)).toEqual([fresh]);
      expect(await f.store.endpoints.secrets(t, endpoint.id, until + 365 * 24 * HOUR)).toEqual([fresh]);
    });

    it('rotate does not extend a secret that expires sooner', async () => {
      const { t, endpoint, t0 } = await endpointWith(2 * HOUR);
      const now = t0 + HOUR;
      await f.store.endpoints.rotateSecret(t, endpoint.id, { sealed: 'v1.new', createdAt: now, expiresAt: null }, now, now + 24 * HOUR, 3);
      const secrets = await f.store.endpoints.secrets(t, endpoint.id, now);
      expect(secrets.map((s) => [s.sealed, s.expiresAt])).toEqual([
        ['v1.new', null],
        ['v1.old', t0 + 2 * HOUR],
      ]);
    });

    it('rotate does not revive a secret that has already expired', async () => {
      const { t, endpoint, t0 } = await endpointWith(HOUR);
      const now = t0 + 2 * HOUR;
      await f.store.endpoints.rotateSecret(t, endpoint.id, { sealed: 'v1.new', createdAt: now, expiresAt: null }, now, now + 24 * HOUR, 3);
      expect((await f.store.endpoints.secrets(t, endpoint.id, now)).map((s) => s.sealed)).toEqual(['v1.new']);
      expect((await f.store.endpoints.secrets(t, endpoint.id, now + HOUR)).map((s) => s.sealed)).toEqual(['v1.new']);
    });

    it('a second rotation limits the previous current secret and leaves the oldest alone', async () => {
      const { t, endpoint, t0 } = await endpointWith(null);
      const first = t0 + HOUR;
      const second = t0 + 2 * HOUR;
      await f.store.endpoints.rotateSecret(t, endpoint.id, { sealed: 'v1.mid', createdAt: first, expiresAt: null }, first, first + 24 * HOUR, 3);
      await f.store.endpoints.rotateSecret(t, endpoint.id, { sealed: 'v1.new', createdAt: second, expiresAt: null }, second, second + 24 * HOUR, 3);
      const secrets = await f.store.endpoints.secrets(t, endpoint.id, second);
      expect(secrets.map((s) => [s.sealed, s.expiresAt])).toEqual([
        ['v1.new', null],
        ['v1.mid', second + 24 * HOUR],
        ['v1.old', first + 24 * HOUR],
      ]);
    });

    it('keeps at most maxLive secrets valid: rotations within the window end the oldest now', async () => {
      const { t, endpoint, t0 } = await endpointWith(null);
      const rotate = (sealed: string, at: number) =>
        f.store.endpoints.rotateSecret(t, endpoint.id, { sealed, createdAt: at, expiresAt: null }, at, at + 24 * HOUR, 3);
      await rotate('v1.b', t0 + 1);
      await rotate('v1.c', t0 + 2);
      expect((await f.store.endpoints.secrets(t, endpoint.id, t0 + 2)).map((s) => s.sealed)).toEqual(['v1.c', 'v1.b', 'v1.old']);
      await rotate('v1.d', t0 + 3);
      await rotate('v1.e', t0 + 4);
      // Three valid at once: the new one and the two before it, whatever the overlap window says.
      expect((await f.store.endpoints.secrets(t, endpoint.id, t0 + 4)).map((s) => s.sealed)).toEqual(['v1.e', 'v1.d', 'v1.c']);
      expect((await f.store.endpoints.secrets(t, endpoint.id, t0 + 5 * HOUR)).map((s) => s.sealed)).toEqual(['v1.e', 'v1.d', 'v1.c']);
    });

    it('leaves the secrets of other endpoints alone', async () => {
      const { t, endpoint, t0 } = await endpointWith(null);
      const other = f.endpoint(endpoint.consumerId);
      await f.store.endpoints.create(t, other, { sealed: 'v1.other', createdAt: t0, expiresAt: null }, 20);
      const now = t0 + HOUR;
      await f.store.endpoints.rotateSecret(t, endpoint.id, { sealed: 'v1.new', createdAt: now, expiresAt: null }, now, now + HOUR, 3);
      expect(await f.store.endpoints.secrets(t, other.id, now + 2 * HOUR)).toEqual([{ sealed: 'v1.other', createdAt: t0, expiresAt: null }]);
    });

    it('rotate of an unknown endpoint is false and secrets of one are empty', async () => {
      const t = await f.tenant();
      const id = newId('endpoint', f.clock);
      const now = f.clock.now();
      expect(await f.store.endpoints.rotateSecret(t, id, { sealed: 'v1.x', createdAt: now, expiresAt: null }, now, now + HOUR, 3)).toBe(false);
      expect(await f.store.endpoints.secrets(t, id, now)).toEqual([]);
    });
  });
}
