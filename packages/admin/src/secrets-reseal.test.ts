// `admin secrets reseal` re-seals every sealed column, not only endpoints' secrets: after a
// rotation and the old key's retirement, a webhook alert target's secret still opens.
import { ManualClock, newId, SecretBox, type AlertTargetId } from '@wirehook/core';
import { verifySealingKeys, type LoadedKeys } from '@wirehook/platform';
import { openSqliteStore, type SqliteStore } from '@wirehook/store';
import { afterEach, describe, expect, it } from 'vitest';
import { runAdminCommand } from './commands.ts';

const A = Buffer.alloc(32, 1).toString('base64');
const B = Buffer.alloc(32, 2).toString('base64');
const ring = (text: string): LoadedKeys => ({ box: SecretBox.fromBase64(text), source: 'WIREHOOK_SECRET_KEY' });
const clock = new ManualClock(Date.UTC(2026, 10, 24));
let store: SqliteStore;
afterEach(async () => store?.close());

describe('secrets reseal', () => {
  it("re-seals alert targets' secrets too, so retiring the old key leaves every notice signable", async () => {
    store = openSqliteStore({ path: ':memory:' });
    const old = ring(`a:${A}`);
    await verifySealingKeys(store.sealing, old, clock);
    const org = await store.orgs.create({ id: newId('org', clock), name: 'Acme', plan: 'free', ownerEmail: null, createdAt: clock.now() });
    const id = newId('alertTarget', clock) as AlertTargetId;
    await store.alerts.createTarget(
      { orgId: org.id, env: 'live' },
      {
        id,
        type: 'webhook',
        url: 'https://hooks.example/alerts',
        address: null,
        sealedSecret: old.box.seal('whsec_target', id),
        createdAt: clock.now(),
      },
    );

    const out = await runAdminCommand(['secrets', 'reseal'], { store, clock, keys: () => ring(`b:${B},a:${A}`) });
    // The old key has left the ring: the target's secret opens with the new one alone.
    const [target] = await store.alerts.targets({ orgId: org.id, env: 'live' });
    expect(ring(`b:${B}`).box.open(target!.sealedSecret!, id)).toBe('whsec_target');
    expect(out).toMatchObject({ key_id: 'b', alert_targets: 1, resealed: 1, retired_keys: ['a'] });
  });
});
