import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Fixtures } from './fixtures.ts';
import { MessageFixtures } from './message-fixtures.ts';

/** Contract of PortalTokenRepo, and the message list scoped to one consumer (what the portal reads). */
export function describePortalContract(f: Fixtures): void {
  const m = new MessageFixtures(f);

  describe('portal', () => {
    it('a token is found by its hash with what it opens, expired or not; deleteExpired removes the expired ones', async () => {
      const scene = await m.scene();
      const now = f.clock.now();
      const token = {
        hash: `h-${randomUUID()}`,
        tenant: scene.t,
        consumerId: scene.consumer.id,
        frameOrigin: 'https://dashboard.example',
        locale: 'ja' as const,
        createdAt: now,
        expiresAt: now + 15 * 60_000,
      };
      await f.store.portalTokens.create(token);
      expect(await f.store.portalTokens.find(token.hash)).toEqual(token);
      expect(await f.store.portalTokens.find(`h-${randomUUID()}`)).toBeNull();
      const bare = { ...token, hash: `h-${randomUUID()}`, frameOrigin: null, locale: null, expiresAt: now - 1 };
      await f.store.portalTokens.create(bare);
      expect(await f.store.portalTokens.find(bare.hash)).toEqual(bare);
      while ((await f.store.portalTokens.deleteExpired(now, 100)) === 100);
      expect(await f.store.portalTokens.find(bare.hash)).toBeNull();
      expect(await f.store.portalTokens.find(token.hash)).toEqual(token);
    });

    it('the message list of one consumer has only its messages', async () => {
      const scene = await m.scene();
      const other = await f.consumer(scene.t, 'customer-2');
      await m.hook(scene.t, other);
      const mine = await m.send(scene.t);
      const theirs = await m.send(scene.t, { consumerExternalId: 'customer-2' });
      const { rows: listed } = await f.store.messages.list(scene.t, { consumerId: scene.consumer.id, limit: 10 });
      expect(listed.map((s) => s.message.id)).toEqual([mine.message.id]);
      const { rows: all } = await f.store.messages.list(scene.t, { limit: 10 });
      expect(all.map((s) => s.message.id)).toEqual([theirs.message.id, mine.message.id]);
    });
  });
}
