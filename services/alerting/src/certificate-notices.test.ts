// Certificate-expiry notices (alert.certificate_expiring) against a real (SQLite) store: who is
// told (each environment's targets, else the owner's e-mail), of what (the certificates expiring
// within 14 days, not after, not already expired, not removed), how often (once a UTC day), and
// that the walk loses no organization across its pages and tells none twice.
import { alertNoticeSchema, ConflictError, type EndpointTls, type OrgId, type Tenant } from '@wirehook/core';
import { silentLogger } from '@wirehook/platform';
import { Registry } from 'prom-client';
import { afterEach, expect, it, vi } from 'vitest';
import type { AlertingWorker } from './alerting-worker.ts';
import { CertificateNotices } from './certificate-notices.ts';
import type { NoticeContent } from './notice-content.ts';
import { AlertScene } from './testing/alert-scene.ts';

// The numbers written out, not imported: a day, and the spec's 14 days (1,209,600,000 ms).
const DAY = 86_400_000;
const FOURTEEN_DAYS = 1_209_600_000;
const FIFTEEN_DAYS = 1_296_000_000;
/** The walk reads 100 certificates a step; a notice lists the 100 soonest. */
const PAGE = 100;

let scene: AlertScene;
const workers: AlertingWorker[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop();
  await scene?.close();
});
function start(at?: number): AlertScene {
  scene = new AlertScene(at);
  return scene;
}
function worker(): AlertingWorker {
  const w = scene.worker();
  workers.push(w);
  return w;
}
/** A tick at the clock's time (the walk's `now`), then one a second later that sends what it queued. */
async function tickAndSend(w: AlertingWorker): Promise<void> {
  await w.tick();
  scene.clock.advance(1_000);
  await w.tick();
  await w.idle();
}
/** A client certificate as stored, expiring at `notAfter` (the walk never opens its key). */
function tls(notAfter: number, subject = 'CN=wirehook-client,O=Acme'): EndpointTls {
  return {
    certificate: '-----BEGIN CERTIFICATE-----\nMIIBclient\n-----END CERTIFICATE-----\n',
    sealedKey: 'v1.sealed-key',
    serverCa: null,
    info: { subject, issuer: 'CN=Acme Client CA', notAfter, fingerprintSha256: 'AB:CD:EF:01', serverCaSubject: null },
  };
}
const certificateNotices = (s: AlertScene) => s.sender.sent.filter((n) => n.content.type === 'alert.certificate_expiring');
const listedIds = (c: NoticeContent) => (c.data.certificates ?? []).map((x) => x.endpoint_id);

it('a certificate expiring in 13 days: one notice to each target of its environment, with the certificate and its endpoint', async () => {
  const s = start();
  const orgId = await s.org();
  const live: Tenant = { orgId, env: 'live' };
  const [a, b] = [await s.target(orgId, 'live'), await s.target(orgId, 'live')];
  const testTarget = await s.target(orgId, 'test');
  const at = s.clock.now();
  const endpoint = await s.endpoint(live, undefined, { tls: tls(at + 13 * DAY) });
  const consumer = await s.store.consumers.get(live, endpoint.consumerId);
  await tickAndSend(worker());

  expect(s.sender.to(a)).toHaveLength(1);
  expect(s.sender.to(b)).toEqual(s.sender.to(a));
  expect(s.sender.to(testTarget)).toEqual([]); // a live certificate: the test environment's targets are not told
  const content = s.sender.to(a)[0]!;
  expect(alertNoticeSchema.safeParse(content).error).toBeUndefined();
  expect(content.type).toBe('alert.certificate_expiring');
  expect(content.timestamp).toBe(new Date(at).toISOString());
  expect(content.data.environments).toEqual(['live']);
  expect(content.data.certificates).toEqual([
    {
      endpoint_id: endpoint.id,
      environment: 'live',
      url: endpoint.url,
      consumer: { external_id: consumer!.externalId },
      subject: 'CN=wirehook-client,O=Acme',
      not_after: at + 13 * DAY,
      fingerprint_sha256: 'AB:CD:EF:01',
      days_left: 13,
    },
  ]);
  expect(content.data.endpoints).toEqual([
    {
      id: endpoint.id,
      url: endpoint.url,
      environment: 'live',
      consumer: { external_id: consumer!.externalId },
      failing_since: null,
      last_error: null,
      last_status: null,
    },
  ]);
  expect(content.data.summary).toContain("An endpoint's client certificate expires in 13 days.");
  expect(content.data.summary).toContain(
    `- ${endpoint.url} (live, customer ${consumer!.externalId}): CN=wirehook-client,O=Acme, expires ${new Date(at + 13 * DAY).toISOString()} (13 days left)`,
  );
});

it('counted as sent in wirehook_alert_notices_total by its type', async () => {
  const s = start();
  const orgId = await s.org();
  await s.target(orgId);
  await s.endpoint({ orgId, env: 'live' }, undefined, { tls: tls(s.clock.now() + 13 * DAY) });
  const registry = new Registry();
  const w = s.worker({ registry });
  workers.push(w);
  await tickAndSend(w);
  expect(await registry.metrics()).toContain('wirehook_alert_notices_total{type="alert.certificate_expiring",outcome="sent"} 1');
});

it('14 days: told a millisecond inside (1,209,599,999 ms left), not at 1,209,600,000 ms, not at 15 days, not once expired', async () => {
  const s = start();
  const at = s.clock.now();
  const org = async (notAfter: number) => {
    const orgId = await s.org();
    await s.endpoint({ orgId, env: 'live' }, undefined, { tls: tls(notAfter) });
    return { orgId, target: await s.target(orgId) };
  };
  const inside = await org(at + 1_209_599_999);
  const edge = await org(at + FOURTEEN_DAYS);
  const fifteen = await org(at + FIFTEEN_DAYS);
  const expired = await org(at - 1);
  await tickAndSend(worker());
  expect(s.sender.to(inside.target).map((c) => c.data.certificates?.[0]?.days_left)).toEqual([14]);
  expect(s.sender.to(edge.target)).toEqual([]);
  expect(s.sender.to(fifteen.target)).toEqual([]);
  expect(s.sender.to(expired.target)).toEqual([]);
  expect(certificateNotices(s)).toHaveLength(1);
});

it('once a UTC day: not again the same day (later ticks, a new walk hours later), again the next day with a day less', async () => {
  const s = start(); // 09:00 UTC
  const orgId = await s.org();
  const target = await s.target(orgId);
  const at = s.clock.now();
  await s.endpoint({ orgId, env: 'live' }, undefined, { tls: tls(at + 13 * DAY) });
  const w = worker();
  await tickAndSend(w);
  expect(s.sender.to(target)).toHaveLength(1);
  await tickAndSend(w);
  s.clock.advance(5 * 60 * 60_000); // 14:00: a new walk, the same day
  await tickAndSend(w);
  expect(s.sender.to(target)).toHaveLength(1);
  s.clock.set(at + DAY); // 09:00 the next day
  await tickAndSend(w);
  expect(s.sender.to(target).map((c) => c.data.certificates?.[0]?.days_left)).toEqual([13, 12]);
});

it('at the day’s end: told at 23:59, not at 23:59:30, again at 00:00 UTC', async () => {
  const s = start(Date.UTC(2026, 4, 12, 23, 59, 0));
  const orgId = await s.org();
  const target = await s.target(orgId);
  await s.endpoint({ orgId, env: 'live' }, undefined, { tls: tls(Date.UTC(2026, 4, 20, 12, 0, 0)) });
  const w = worker();
  await tickAndSend(w);
  s.clock.set(Date.UTC(2026, 4, 12, 23, 59, 30));
  await tickAndSend(w);
  expect(s.sender.to(target)).toHaveLength(1);
  s.clock.set(Date.UTC(2026, 4, 13, 0, 0, 0));
  await tickAndSend(w);
  // 7 days 12 hours 1 minute left, then 7 days 12 hours: rounded up, 8 both times.
  expect(s.sender.to(target).map((c) => c.data.certificates?.[0]?.days_left)).toEqual([8, 8]);
});

it('two organizations: each told of its own certificates only', async () => {
  const s = start();
  const at = s.clock.now();
  const [one, two] = [await s.org(), await s.org()];
  const [t1, t2] = [await s.target(one), await s.target(two)];
  const e1 = await s.endpoint({ orgId: one, env: 'live' }, undefined, { tls: tls(at + 3 * DAY) });
  const e2 = await s.endpoint({ orgId: two, env: 'live' }, undefined, { tls: tls(at + 3 * DAY) }); // the same millisecond
  const e3 = await s.endpoint({ orgId: one, env: 'live' }, undefined, { tls: tls(at + 10 * DAY) });
  await tickAndSend(worker());
  expect(s.sender.to(t1).map(listedIds)).toEqual([[e1.id, e3.id]]);
  expect(s.sender.to(t2).map(listedIds)).toEqual([[e2.id]]);
  expect(s.sender.to(t1)[0]?.data.summary).toContain('The client certificates of 2 endpoints expire within 14 days.');
});

it('each environment to its own targets; an environment without one to the owner’s e-mail; an organization without either is not told', async () => {
  const s = start();
  const at = s.clock.now();
  const both = await s.org();
  const [live, test] = [await s.target(both, 'live'), await s.target(both, 'test')];
  const eLive = await s.endpoint({ orgId: both, env: 'live' }, undefined, { tls: tls(at + 2 * DAY) });
  const eTest = await s.endpoint({ orgId: both, env: 'test' }, undefined, { tls: tls(at + 4 * DAY) });
  const liveOnly = await s.org();
  const liveTarget = await s.target(liveOnly, 'live');
  const testOfLiveOnly = await s.endpoint({ orgId: liveOnly, env: 'test' }, undefined, { tls: tls(at + 5 * DAY) });
  const none = await s.org();
  const eNone = await s.endpoint({ orgId: none, env: 'live' }, undefined, { tls: tls(at + 6 * DAY) });
  await tickAndSend(worker());
  expect(s.sender.to(live).map(listedIds)).toEqual([[eLive.id]]);
  expect(s.sender.to(test).map(listedIds)).toEqual([[eTest.id]]);
  expect(s.sender.to(test)[0]?.data.environments).toEqual(['test']);
  expect(s.sender.to(liveTarget)).toEqual([]);
  const owner = certificateNotices(s).filter((n) => n.target === 'owner');
  expect(owner.map((n) => [n.notice.orgId, listedIds(n.content)])).toEqual([
    [liveOnly, [testOfLiveOnly.id]],
    [none, [eNone.id]],
  ]);
});

it('an organization without owner_email and without targets is not told, and is told once it has a target', async () => {
  const s = start();
  const orgId = await s.org('starter', null);
  const at = s.clock.now();
  await s.endpoint({ orgId, env: 'live' }, undefined, { tls: tls(at + 13 * DAY) });
  const w = worker();
  await tickAndSend(w);
  expect(certificateNotices(s)).toEqual([]);
  const target = await s.target(orgId);
  s.clock.advance(60 * 60_000); // the next walk, within the hour
  await tickAndSend(w);
  expect(s.sender.to(target)).toHaveLength(1);
});

it('a removed certificate (tls null) is not told, before its first notice or after it', async () => {
  const s = start();
  const at = s.clock.now();
  const orgId = await s.org();
  const target = await s.target(orgId);
  const t: Tenant = { orgId, env: 'live' };
  const removedAtOnce = await s.endpoint(t, undefined, { tls: tls(at + 13 * DAY) });
  expect((await s.store.endpoints.update(t, removedAtOnce.id, { tls: null }))?.tls).toBeNull();
  const w = worker();
  await tickAndSend(w);
  expect(s.sender.to(target)).toEqual([]);

  const removedLater = await s.endpoint(t, undefined, { tls: tls(at + 13 * DAY) });
  s.clock.set(at + DAY);
  await tickAndSend(w);
  expect(s.sender.to(target).map(listedIds)).toEqual([[removedLater.id]]);
  await s.store.endpoints.update(t, removedLater.id, { tls: null });
  s.clock.set(at + 2 * DAY);
  await tickAndSend(w);
  expect(s.sender.to(target)).toHaveLength(1);
});

it('paused and disabled endpoints are told too (a resume sends with the same certificate); a deleted one is not', async () => {
  const s = start();
  const at = s.clock.now();
  const orgId = await s.org();
  const target = await s.target(orgId);
  const t: Tenant = { orgId, env: 'live' };
  const paused = await s.endpoint(t, undefined, { tls: tls(at + 1 * DAY), status: 'paused' });
  const disabled = await s.endpoint(t, undefined, { tls: tls(at + 2 * DAY), status: 'disabled' });
  const deleted = await s.endpoint(t, undefined, { tls: tls(at + 3 * DAY) });
  await s.store.endpoints.delete(t, deleted.id);
  await tickAndSend(worker());
  expect(s.sender.to(target).map(listedIds)).toEqual([[paused.id, disabled.id]]);
  expect(s.sender.to(target)[0]?.data.certificates?.[0]?.days_left).toBe(1);
});

it(`more organizations than a page (${PAGE} certificates, all expiring in the same millisecond): each told once, none lost at the boundary`, async () => {
  const s = start();
  const at = s.clock.now();
  const orgs: OrgId[] = [];
  for (let i = 0; i < PAGE + 30; i++) {
    const orgId = await s.org();
    await s.endpoint({ orgId, env: 'live' }, undefined, { tls: tls(at + 7 * DAY) });
    orgs.push(orgId);
  }
  const w = worker();
  await w.tick();
  expect(s.noticesQueued('alert.certificate_expiring')).toBe(PAGE);
  for (let i = 0; i < 4; i++) await tickAndSend(w);
  const told = certificateNotices(s).map((n) => n.notice.orgId);
  expect(told).toHaveLength(orgs.length);
  expect(new Set(told)).toEqual(new Set(orgs));
});

it(`an organization with more than ${PAGE} certificates expiring: one notice with the ${PAGE} soonest, saying there are more`, async () => {
  const s = start();
  const at = s.clock.now();
  const orgId = await s.org();
  const target = await s.target(orgId);
  const made: string[] = [];
  for (let i = 0; i < PAGE + 1; i++) made.push((await s.endpoint({ orgId, env: 'live' }, undefined, { tls: tls(at + DAY + i * 60_000) })).id);
  const w = worker();
  for (let i = 0; i < 3; i++) await tickAndSend(w);
  expect(s.sender.to(target)).toHaveLength(1);
  const content = s.sender.to(target)[0]!;
  expect(listedIds(content)).toEqual(made.slice(0, PAGE));
  expect(content.data.endpoints).toHaveLength(PAGE);
  expect(content.data.summary).toContain(`More than ${PAGE} endpoints' client certificates expire within 14 days (the ${PAGE} soonest are listed).`);
});

it('a step ends after the organization that brings its certificates to 200; the next step goes on from the one after', async () => {
  const s = start();
  const at = s.clock.now();
  const [a, b, c] = [await s.org(), await s.org(), await s.org()];
  // The first page meets a, b, then c (third): a and b list 100 each, so the step ends before c,
  // whose one certificate the next step must read again (not skip with the rest of the page).
  for (let n = 0; n < 100; n++) {
    await s.endpoint({ orgId: a, env: 'live' }, undefined, { tls: tls(at + DAY + n * 60_000) });
    await s.endpoint({ orgId: b, env: 'live' }, undefined, { tls: tls(at + DAY + n * 60_000 + 1) });
    if (n === 0) await s.endpoint({ orgId: c, env: 'live' }, undefined, { tls: tls(at + DAY + 2) });
  }
  const w = worker();
  await w.tick();
  expect(s.noticesQueued('alert.certificate_expiring')).toBe(2);
  s.clock.advance(1_000);
  await w.tick();
  expect(s.noticesQueued('alert.certificate_expiring')).toBe(3);
  for (let i = 0; i < 3; i++) await tickAndSend(w);
  expect(
    certificateNotices(s)
      .map((n) => n.notice.orgId)
      .sort(),
  ).toEqual([a, b, c].sort());
});

it('two replicas walking at once queue no organization’s notice twice', async () => {
  const s = start();
  const at = s.clock.now();
  const orgs: OrgId[] = [];
  for (let i = 0; i < 30; i++) {
    const orgId = await s.org();
    await s.endpoint({ orgId, env: 'live' }, undefined, { tls: tls(at + 5 * DAY) });
    orgs.push(orgId);
  }
  const [a, b] = [worker(), worker()];
  for (let i = 0; i < 3; i++) {
    await Promise.all([a.tick(), b.tick()]);
    s.clock.advance(1_000);
  }
  await Promise.all([a.tick(), b.tick()]);
  await Promise.all([a.idle(), b.idle()]);
  expect(s.noticesQueued('alert.certificate_expiring')).toBe(30);
  expect(new Set(certificateNotices(s).map((n) => n.notice.orgId))).toEqual(new Set(orgs));
});

it('an organization whose state another worker committed meanwhile is looked at again by the next step, not skipped', async () => {
  const s = start();
  const at = s.clock.now();
  const orgId = await s.org();
  const target = await s.target(orgId);
  await s.endpoint({ orgId, env: 'live' }, undefined, { tls: tls(at + 13 * DAY) });
  const walk = new CertificateNotices({ store: s.store, clock: s.clock, logger: silentLogger(), canEmail: true });
  const commit = vi.spyOn(s.store.alerts, 'commitStep').mockRejectedValueOnce(new ConflictError(`the alert state of ${orgId} moved on`));
  await walk.step();
  expect(s.noticesQueued('alert.certificate_expiring')).toBe(0);
  s.clock.advance(1_000);
  await walk.step();
  expect(commit).toHaveBeenCalledTimes(2);
  expect(s.noticesQueued('alert.certificate_expiring')).toBe(1);
  await tickAndSend(worker());
  expect(s.sender.to(target)).toHaveLength(1);
});
