// GET /v1/egress-ips: the addresses fixed_ip endpoints are sent from, recorded from
// RELAY_SOURCE_IPS at start, so a restart with a changed pool lists the removed addresses as
// retiring for 30 days, and organizations with fixed_ip endpoints are told (alert.egress_ips).
// Embedded mode over one DATA_DIR, restarted; cluster mode's listing is checked beside its
// relay (test/cluster/new-services.cluster.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually, testCa, verifyWebhook } from '@wirehook/testkit';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { startReceiver, TEST_ALLOW_HOSTS, TEST_RESOLVE, type NamedReceiver } from '../support/receivers.ts';

const DAY = 24 * 60 * 60 * 1000;
const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-egress-ips-'));
let wh: Harness | undefined;
/** When the second start saw the changed pool. */
let changedAt = 0;
let hooks: NamedReceiver; // the organizations' webhook alert targets
let caPem: string;
beforeAll(async () => {
  caPem = (await testCa()).caPem;
  hooks = await startReceiver();
});
afterAll(async () => {
  await wh?.close();
  await hooks.receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
});
const start = (options: { relaySourceIps?: string; startAt?: number }) =>
  startWirehook({ dataDir, allowHosts: TEST_ALLOW_HOSTS, resolve: TEST_RESOLVE, ca: caPem, ...options });

/** An organization's webhook alert target and one endpoint, sent from the pool or not; the target's secret. */
async function withTargetAndEndpoint(t: TestTenant, fixedIp: boolean): Promise<string> {
  const target = await t.api.post('/v1/alert-targets', { type: 'webhook', url: hooks.url(`/alerts/${t.orgId}`) });
  const consumer = (await t.api.post('/v1/consumers', { external_id: 'allowlisting-customer' })).body.id;
  expect((await t.api.post('/v1/endpoints', { consumer_id: consumer, url: hooks.url('/customer'), fixed_ip: fixedIp })).status).toBe(201);
  return target.body.secret;
}

it('lists the pool to any key of the environment; a restart with another pool lists the removed addresses retiring for 30 days', async () => {
  wh = await start({ relaySourceIps: '127.0.0.2,::1' });
  const t = await wh.tenant();
  const secret = await withTargetAndEndpoint(t, true);
  const direct = await wh.tenant();
  await withTargetAndEndpoint(direct, false);
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
  wh = await start({ relaySourceIps: '127.0.0.3' });
  changedAt = wh.clock.now();
  // The organization with a fixed_ip endpoint is told, signed with its target's secret; the other is not.
  await eventually(async () => {
    await wh!.embedded.alertingWorker.tick();
    await wh!.embedded.alertingWorker.idle();
    expect(hooks.receiver.requests.filter((r) => r.path.startsWith('/alerts/'))).toHaveLength(1);
  });
  const [told] = hooks.receiver.requests.filter((r) => r.path.startsWith('/alerts/'));
  expect(told!.path).toBe(`/alerts/${orgId}`);
  expect(verifyWebhook(secret, told!) as any).toMatchObject({
    type: 'alert.egress_ips',
    data: { added: ['127.0.0.3'], retiring: ['127.0.0.2', '::1'], retiring_at: changedAt + 30 * DAY },
  });
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
  wh = await start({ startAt: changedAt + 31 * DAY });
  const t = await wh.tenant();
  expect((await t.api.get('/v1/egress-ips')).body).toEqual({ items: [{ ip: '127.0.0.3', family: 4, retiring_at: null }] });
});
