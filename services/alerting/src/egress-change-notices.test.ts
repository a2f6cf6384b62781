// Notices of a fixed IP pool change, against a real (SQLite) store: who is told (organizations
// with a fixed_ip endpoint, at every target, else the owner's e-mail), once each, a page of
// organizations per tick, and not twice when two replicas tick at once.
import type { OrgId } from '@wirehook/core';
import { afterEach, expect, it } from 'vitest';
import type { AlertingWorker } from './alerting-worker.ts';
// The numbers written out: a step is 100 organizations, ending at 200 notices.
const EGRESS_ORGS_PER_STEP = 100;
const EGRESS_NOTICES_PER_STEP = 200;
import type { NoticeContent } from './notice-content.ts';
import { AlertScene } from './testing/alert-scene.ts';

const DAY = 24 * 60 * 60 * 1000;
const NOTICE = 30 * DAY;

let scene: AlertScene;
const workers: AlertingWorker[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop();
  await scene?.close();
});
function start(): AlertScene {
  scene = new AlertScene();
  return scene;
}
function worker(options: { sendTimeoutMs?: number } = {}): AlertingWorker {
  const w = scene.worker(options);
  workers.push(w);
  return w;
}
/** One tick a second later, and the sends it started. */
async function round(w: AlertingWorker): Promise<void> {
  scene.clock.advance(1_000);
  await w.tick();
  await w.idle();
}
/** An organization with one endpoint, fixed_ip or not. */
async function orgWithEndpoint(s: AlertScene, fixedIp: boolean): Promise<OrgId> {
  const orgId = await s.org();
  await s.endpoint({ orgId, env: 'live' }, undefined, { fixedIp });
  return orgId;
}
/** The pool as the gateway records it at two starts: a first pool, then one with an address swapped. */
async function changePool(s: AlertScene): Promise<number> {
  await s.store.egressIps.sync(
    [
      { ip: '203.0.113.1', family: 4 },
      { ip: '2001:db8::1', family: 6 },
    ],
    s.clock.now(),
    NOTICE,
  );
  s.clock.advance(1_000);
  const at = s.clock.now();
  await s.store.egressIps.sync(
    [
      { ip: '203.0.113.2', family: 4 },
      { ip: '2001:db8::1', family: 6 },
    ],
    at,
    NOTICE,
  );
  return at;
}
const egressNotices = (s: AlertScene) => s.sender.sent.filter((n) => n.content.type === 'alert.egress_ips');

it('told: each target (both environments) of an organization with a fixed_ip endpoint, else its owner; not one with direct endpoints only; once', async () => {
  const s = start();
  const fixed = await orgWithEndpoint(s, true);
  const [live, test] = [await s.target(fixed, 'live'), await s.target(fixed, 'test')];
  const direct = await orgWithEndpoint(s, false);
  await s.target(direct);
  const untargeted = await orgWithEndpoint(s, true);
  const w = worker();
  await round(w);
  expect(egressNotices(s)).toHaveLength(0); // a first pool is no change

  const at = await changePool(s);
  // Queued by one tick, sent by the next.
  await round(w);
  await round(w);
  expect(s.sender.to(live).map((c) => c.type)).toEqual(['alert.egress_ips']);
  expect(s.sender.to(test).map((c) => c.type)).toEqual(['alert.egress_ips']);
  const content = s.sender.to(live)[0] as NoticeContent;
  expect(content.data).toMatchObject({ added: ['203.0.113.2'], retiring: ['203.0.113.1'], retiring_at: at + NOTICE, endpoints: [] });
  expect(content.data.addresses).toEqual([
    { ip: '203.0.113.2', family: 4, retiring_at: null },
    { ip: '2001:db8::1', family: 6, retiring_at: null },
    { ip: '203.0.113.1', family: 4, retiring_at: at + NOTICE },
  ]);
  expect(content.data.summary).toContain('Allow: 203.0.113.2, 2001:db8::1');
  expect(content.data.summary).toContain(new Date(at + NOTICE).toISOString());
  const owner = egressNotices(s).filter((n) => n.target === 'owner');
  expect(owner.map((n) => n.notice.orgId)).toEqual([untargeted]);
  expect(egressNotices(s).map((n) => n.notice.orgId)).not.toContain(direct);
  expect(egressNotices(s)).toHaveLength(3);

  for (let i = 0; i < 3; i++) await round(w);
  expect(egressNotices(s)).toHaveLength(3);
});

it(`a step of ${EGRESS_ORGS_PER_STEP} organizations; two replicas ticking at once queue no organization's notices twice`, async () => {
  const s = start();
  const orgs: OrgId[] = [];
  for (let i = 0; i < EGRESS_ORGS_PER_STEP + 30; i++) orgs.push(await orgWithEndpoint(s, true));
  const [a, b] = [worker(), worker()];
  await changePool(s);
  await Promise.all([round(a), round(b)]);
  await Promise.all([round(a), round(b)]);
  // Both read the same cursor: one step was queued, the other refused.
  expect(egressNotices(s)).toHaveLength(EGRESS_ORGS_PER_STEP);
  for (let i = 0; i < 3; i++) await Promise.all([round(a), round(b)]);
  const told = egressNotices(s).map((n) => n.notice.orgId);
  expect(told).toHaveLength(orgs.length);
  expect(new Set(told)).toEqual(new Set(orgs));
});

it(`a step ends at the organization that brings its notices to ${EGRESS_NOTICES_PER_STEP}, and the next waits until the outbox has sent them`, async () => {
  const s = start();
  for (let i = 0; i < 80; i++) {
    const orgId = await orgWithEndpoint(s, true);
    for (let t = 0; t < 3; t++) await s.target(orgId);
  }
  const w = worker();
  await changePool(s);
  // 67 organizations × 3 = 201 notices, sent 100 a tick (MAX_IN_FLIGHT); the next step once the outbox had room.
  for (let i = 0; i < 4; i++) await round(w);
  expect(egressNotices(s)).toHaveLength(201);
  expect(new Set(egressNotices(s).map((n) => n.notice.orgId)).size).toBe(67);
  await round(w);
  expect(egressNotices(s)).toHaveLength(240);
});

it('a failure notice queued while a change is being told goes at once, not behind the walk', async () => {
  const s = start();
  for (let i = 0; i < 400; i++) await orgWithEndpoint(s, true);
  const failing = await s.org();
  const target = await s.target(failing);
  const endpoint = await s.endpoint({ orgId: failing, env: 'live' });
  const w = worker();
  await changePool(s);
  for (let i = 0; i < 3; i++) await round(w); // a step queued, then sent 100 a tick
  await s.fail({ orgId: failing, env: 'live' }, endpoint);
  // Its organization's turn comes within a lap of the organizations with due notices (≤ a step's, 100 a tick), not after the walk's 400.
  await round(w);
  await round(w);
  expect(s.sender.to(target).map((c) => c.type)).toEqual(['alert.delivery_failure']);
  expect(egressNotices(s).length).toBeLessThan(400);
});

it('with the outbox kept full (targets that hang), the walk still takes a step a minute', async () => {
  const s = start();
  for (let i = 0; i < 150; i++) await orgWithEndpoint(s, true);
  s.sender.answer = () => new Promise(() => {}); // never answers: each send ends at its bound
  const w = worker({ sendTimeoutMs: 2_000 });
  await changePool(s);
  await w.tick(); // room: the first step, 100 owner notices
  expect(s.noticesQueued('alert.egress_ips')).toBe(100);
  s.clock.advance(1_000);
  await w.tick(); // 100 claimed (one per organization) and hanging: no room
  s.clock.advance(1_000);
  await w.tick(); // all 100 places taken
  expect(s.noticesQueued('alert.egress_ips')).toBe(100);
  s.clock.advance(60_000);
  await w.tick();
  expect(s.noticesQueued('alert.egress_ips')).toBe(150);
});
