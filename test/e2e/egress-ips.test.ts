// GET /v1/egress-ips (#33): the addresses fixed_ip endpoints are sent from, recorded from
// RELAY_SOURCE_IPS at start, so a restart with a changed pool lists the removed addresses as
// retiring for 30 days. Embedded mode over one DATA_DIR, restarted; cluster mode's listing is
// checked beside its relay (test/cluster/new-services.cluster.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startWirehook, type Harness } from '../support/harness.ts';

const DAY = 24 * 60 * 60 * 1000;
const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-egress-ips-'));
let wh: Harness | undefined;
/** When the second start saw the changed pool. */
let changedAt = 0;
afterAll(async () => {
  await wh?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('lists the pool to any key of the environment; a restart with another pool lists the removed addresses retiring for 30 days', async () => {
  wh = await startWirehook({ dataDir, relaySourceIps: '127.0.0.2,::1' });
  const t = await wh.tenant();
  // Any key: one with a single unrelated scope reads it, as it reads the event types.
  const sender = await wh.key(t.orgId, { scopes: ['messages:send'] });
  const first = await sender.api.get('/v1/egress-ips');
  expect(first.status).toBe(200);
  expect(first.body).toEqual({
    items: [
      { ip: '127.0.0.2', family: 4, retiring_at: null },
      { ip: '::1', family: 6, retiring_at: null },
    ],
  });
  expect((await wh.anonymous.get('/v1/egress-ips')).status).toBe(401);
  const orgId = t.orgId;
  await wh.close();

  // The operator swaps the IPv4 address and drops the IPv6 one.
  wh = await startWirehook({ dataDir, relaySourceIps: '127.0.0.3' });
  changedAt = wh.clock.now();
  const again = await wh.key(orgId, { scopes: ['logs:read'] });
  expect((await again.api.get('/v1/egress-ips')).body).toEqual({
    items: [
      { ip: '127.0.0.3', family: 4, retiring_at: null },
      { ip: '127.0.0.2', family: 4, retiring_at: changedAt + 30 * DAY },
      { ip: '::1', family: 6, retiring_at: changedAt + 30 * DAY },
    ],
  });
  // Listed until the notice ends, not a millisecond after.
  wh.clock.advance(30 * DAY - 1);
  expect((await again.api.get('/v1/egress-ips')).body.items).toHaveLength(3);
  wh.clock.advance(1);
  expect((await again.api.get('/v1/egress-ips')).body).toEqual({ items: [{ ip: '127.0.0.3', family: 4, retiring_at: null }] });
});

it('a start without RELAY_SOURCE_IPS leaves the recorded list as it was', async () => {
  await wh?.close();
  wh = await startWirehook({ dataDir, startAt: changedAt + 31 * DAY });
  const t = await wh.tenant();
  expect((await t.api.get('/v1/egress-ips')).body).toEqual({ items: [{ ip: '127.0.0.3', family: 4, retiring_at: null }] });
});
