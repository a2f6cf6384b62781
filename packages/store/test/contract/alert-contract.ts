import { randomUUID } from 'node:crypto';
import { ConflictError, newId, type AlertTargetId, type OrgId, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { claimRef, type DeliveryJob } from '../../src/ports/delivery-port.ts';
import { readAlertState, type AlertState, type NoticeDelivery } from '../../src/ports/alert-settings-port.ts';
import type { Fixtures } from './fixtures.ts';
import { HOUR, MessageFixtures, MINUTE } from './message-fixtures.ts';

/**
 * Contract of AlertSettingsRepo: conditions and targets per environment; the
 * outbox (one queued event per endpoint and kind, read per organization); failing endpoints
 * walked per organization; notices claimed under a claim that alone moves them on.
 */
export function describeAlertContract(f: Fixtures): void {
  const m = new MessageFixtures(f);

  /** A message to the scene's endpoint whose attempt fails: exhausted (failed) or retrying. */
  const fail = async (t: Tenant, outcome: 'exhausted' | 'retrying' = 'exhausted', consumerExternalId = 'customer-1'): Promise<DeliveryJob> => {
    const sent = await m.send(t, { consumerExternalId });
    const job = await m.claim(m.only(sent));
    const now = f.clock.now();
    await f.store.deliveries.complete(claimRef(job), m.failed(job, now, outcome === 'exhausted' ? null : now + HOUR));
    return job;
  };
  const target = (id: AlertTargetId) => ({
    id,
    type: 'webhook' as const,
    url: 'https://hooks.example/a',
    address: null,
    sealedSecret: null,
    createdAt: f.clock.now(),
  });

  describe('alert conditions', () => {
    it('null until chosen; then the last choice, per environment of an organization', async () => {
      const org = await f.org();
      const other = await f.org();
      const live: Tenant = { orgId: org.id, env: 'live' };
      const test: Tenant = { orgId: org.id, env: 'test' };
      expect(await f.store.alerts.conditions(live)).toBeNull();
      const chosen = { delivery_failure: '5m', automatic_stop: false, pending_retries: 100, usage: 50 } as const;
      await f.store.alerts.setConditions(live, chosen, 1);
      expect(await f.store.alerts.conditions(live)).toEqual(chosen);
      await f.store.alerts.setConditions(live, { ...chosen, usage: 100 }, 2);
      expect(await f.store.alerts.conditions(live)).toEqual({ ...chosen, usage: 100 });
      expect(await f.store.alerts.conditions({ orgId: other.id, env: 'live' })).toBeNull();
      expect(await f.store.alerts.conditions(test)).toBeNull(); // the other environment never chose
    });

    it("each environment's own: a choice in one leaves the other's as it was (a test key cannot mute live alerting)", async () => {
      const org = await f.org();
      const live: Tenant = { orgId: org.id, env: 'live' };
      const test: Tenant = { orgId: org.id, env: 'test' };
      const chosen = { delivery_failure: '15m', automatic_stop: true, pending_retries: 1_000, usage: 80 } as const;
      await f.store.alerts.setConditions(live, chosen, 1);
      await f.store.alerts.setConditions(test, { ...chosen, automatic_stop: false, delivery_failure: 'first' }, 2);
      expect(await f.store.alerts.conditions(live)).toEqual(chosen);
      expect(await f.store.alerts.conditions(test)).toEqual({ ...chosen, automatic_stop: false, delivery_failure: 'first' });
      await f.store.alerts.setConditions(live, { ...chosen, usage: 50 }, 3);
      expect(await f.store.alerts.conditions(test)).toEqual({ ...chosen, automatic_stop: false, delivery_failure: 'first' });
    });
  });

  describe('alert targets', () => {
    it('at most max per environment: the last one fits, the next is refused (InvalidError), the other environment is apart', async () => {
      const org = await f.org();
      const live: Tenant = { orgId: org.id, env: 'live' };
      for (let i = 0; i < 20; i++) await f.store.alerts.createTarget(live, target(newId('alertTarget', f.clock)), 20);
      await expect(f.store.alerts.createTarget(live, target(newId('alertTarget', f.clock)), 20)).rejects.toThrow(
        'the live environment already has 20 alert targets; the limit is 20 per environment',
      );
      await f.store.alerts.createTarget({ orgId: org.id, env: 'test' }, target(newId('alertTarget', f.clock)), 20);
    });

    it('belong to an environment: listed and deleted only there; the sender finds one by organization and id', async () => {
      const org = await f.org();
      const live: Tenant = { orgId: org.id, env: 'live' };
      const test: Tenant = { orgId: org.id, env: 'test' };
      f.clock.advance(1_000);
      const a = newId('alertTarget', f.clock);
      expect(await f.store.alerts.createTarget(live, target(a))).toMatchObject({ id: a, env: 'live' });
      f.clock.advance(1_000);
      const b = newId('alertTarget', f.clock);
      await f.store.alerts.createTarget(test, target(b));
      expect((await f.store.alerts.targets(live)).map((x) => [x.id, x.env])).toEqual([[a, 'live']]);
      expect((await f.store.alerts.targets(test)).map((x) => [x.id, x.env])).toEqual([[b, 'test']]);
      expect(await f.store.alerts.target(org.id, b)).toMatchObject({ id: b, env: 'test' });
      expect(await f.store.alerts.target((await f.org()).id, b)).toBeNull();
      expect(await f.store.alerts.deleteTarget(test, a)).toBe(false);
      expect(await f.store.alerts.deleteTarget(live, a)).toBe(true);
      expect(await f.store.alerts.targets(live)).toEqual([]);
    });
  });

  describe('alert outbox', () => {
    it("an endpoint's repeated events collapse into the queued one; consumed, the next one queues again", async () => {
      const { t } = await m.scene();
      for (let i = 0; i < 5; i++) await fail(t);
      const events = await f.store.alerts.events(t.orgId, 100);
      expect(events.map((e) => e.kind).sort()).toEqual(['exhausted', 'failing']);
      expect(events[0]).toMatchObject({ tenant: t, deliveryId: expect.stringMatching(/^dlv_/) });
      await f.store.alerts.commitStep(
        t.orgId,
        events.map((e) => e.id),
        { version: 1, windows: {}, lastNoticeAt: {}, notifiedStreaks: {} },
        [],
      );
      await fail(t);
      expect((await f.store.alerts.events(t.orgId, 100)).map((e) => e.kind)).toEqual(['exhausted']);
    });

    it('a stale step (its state read before another committed) is refused and leaves an event queued again since', async () => {
      const { t } = await m.scene();
      await fail(t, 'exhausted');
      const first = await f.store.alerts.events(t.orgId, 100);
      const step = (version: number) =>
        f.store.alerts.commitStep(
          t.orgId,
          first.map((e) => e.id),
          { version, windows: {}, lastNoticeAt: {}, notifiedStreaks: {} },
          [],
        );
      await step(1);
      // The same endpoint and kind queued again (MongoDB: under the same id), then a second worker's step
      // that read state version 0 and the first queue.
      await fail(t, 'exhausted');
      await expect(step(1)).rejects.toBeInstanceOf(ConflictError);
      expect((await f.store.alerts.events(t.orgId, 100)).map((e) => e.kind)).toEqual(['exhausted']);
    });

    it('organizations with events, the oldest waiting first, each once however many it has', async () => {
      const flood = await m.scene();
      const quiet = await m.scene();
      const others: Tenant[] = [];
      for (let i = 0; i < 3; i++) others.push((await m.scene()).t);
      await fail(flood.t);
      await fail(quiet.t);
      for (const t of others) await fail(t);
      const listed = (await f.store.alerts.eventOrgs(100_000)).filter((o) => [flood.t, quiet.t, ...others].some((t) => t.orgId === o));
      expect(listed).toEqual([flood.t.orgId, quiet.t.orgId, ...others.map((t) => t.orgId)]);
    });

    it('failing endpoints, per organization and in turn: organizations after a cursor, streaks oldest first after one', async () => {
      const a = await m.scene();
      const t0 = f.clock.now();
      await fail(a.t, 'retrying');
      const second = await m.hook(a.t, await f.consumer(a.t, 'customer-2'));
      await fail(a.t, 'retrying', 'customer-2');
      const b = await m.scene();
      await fail(b.t, 'retrying');
      const now = f.clock.now();
      const orgs = await f.store.alerts.failingOrgs(t0, now, null, 100_000);
      expect(orgs).toEqual(expect.arrayContaining([a.t.orgId, b.t.orgId]));
      expect([...orgs].sort()).toEqual(orgs);
      const after = (await f.store.alerts.failingOrgs(t0, now, a.t.orgId, 100_000)).filter((o) => o === a.t.orgId || o === b.t.orgId);
      expect(after).toEqual(a.t.orgId < b.t.orgId ? [b.t.orgId] : []);
      const page = await f.store.alerts.failingEndpoints(a.t.orgId, t0, now, null, 1);
      expect(page.map((x) => x.endpointId)).toEqual([a.endpoint.id]);
      const next = await f.store.alerts.failingEndpoints(a.t.orgId, t0, now, { failingSince: page[0]!.failingSince, endpointId: page[0]!.endpointId }, 10);
      expect(next.map((x) => x.endpointId)).toEqual([second.id]);
      expect(await f.store.alerts.failingEndpoints(a.t.orgId, now + 1, now + MINUTE, null, 10)).toEqual([]);
    });

    it('retrying totals in pages: every organization with one read once over the pages, each page after the last it read', async () => {
      const scenes = [await m.scene(), await m.scene(), await m.scene()];
      for (const s of scenes) for (let i = 0; i < 2; i++) await fail(s.t, 'retrying');
      const ours = new Set(scenes.map((s) => s.t.orgId as string));
      const read: string[] = [];
      let after: OrgId | null = null;
      for (let pages = 0; pages < 1_000; pages++) {
        // One organization a page at most (an adapter may answer the whole walk at once).
        const page = await f.store.alerts.retryingCounts(2, after, 1);
        read.push(...page.counts.map((r) => r.tenant.orgId).filter((o) => ours.has(o)));
        if (page.next === null) break;
        expect(after === null || page.next > after).toBe(true);
        after = page.next;
      }
      expect(read).toEqual([...ours].sort());
      // From after the second: the third alone of these.
      const sorted = [...ours].sort();
      const rest = await f.store.alerts.retryingCounts(2, sorted[1] as OrgId, 1_000);
      expect(rest.counts.map((r) => r.tenant.orgId).filter((o) => ours.has(o))).toEqual([sorted[2]]);
    });

    it('retrying totals: environments with at least min (3 listed at 3, not at 4), and one environment counted', async () => {
      const a = await m.scene();
      for (let i = 0; i < 3; i++) await fail(a.t, 'retrying');
      await fail(a.t, 'exhausted');
      const of = (rows: { tenant: Tenant; count: number; exact: boolean }[]) => rows.filter((r) => r.tenant.orgId === a.t.orgId);
      const listed = of((await f.store.alerts.retryingCounts(3, null, 1_000)).counts);
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ tenant: a.t, count: 3 });
      expect(of((await f.store.alerts.retryingCounts(4, null, 1_000)).counts)).toEqual([]);
      // Exact or not, the count of one environment is its number (the failed one not among them).
      expect(await f.store.alerts.retryingCount(a.t, 10_001)).toBe(3);
      // Counted only up to what is asked: 2 of the 3.
      expect(await f.store.alerts.retryingCount(a.t, 2)).toBe(2);
      expect(await f.store.alerts.retryingCount({ ...a.t, env: a.t.env === 'live' ? 'test' : 'live' }, 10_001)).toBe(0);
    });
  });

  describe('alert notices', () => {
    it('only the claim that holds a notice moves it on; a try is listed whoever made it', async () => {
      const org = await f.org();
      const targetId = newId('alertTarget', f.clock);
      const now = f.clock.now();
      const notice: NoticeDelivery = { id: `ntc_${randomUUID()}`, orgId: org.id, targetId, type: 'alert.usage', body: '{}', createdAt: now };
      await f.store.alerts.commitStep(org.id, [], { version: 1, windows: {}, lastNoticeAt: {}, notifiedStreaks: {} }, [notice]);
      const mine = (claimed: { id: string }[]) => claimed.filter((n) => n.id === notice.id);
      const first = mine(await f.store.alerts.claimNotices(now, now + MINUTE, 'claim-1', 100_000));
      expect(first).toMatchObject([{ id: notice.id, claim: 'claim-1', attempts: 0 }]);
      expect(mine(await f.store.alerts.claimNotices(now + 1, now + MINUTE, 'claim-x', 100_000))).toEqual([]); // leased
      // The first send stalls past its lease; another replica claims and sends it.
      const second = mine(await f.store.alerts.claimNotices(now + MINUTE, now + 2 * MINUTE, 'claim-2', 100_000));
      expect(second).toMatchObject([{ claim: 'claim-2' }]);
      const attempt = { at: now + MINUTE, responseStatus: 200, error: null, durationMs: 5 };
      await f.store.alerts.recordNoticeAttempt(notice.id, 'claim-2', attempt, true, null);
      await f.store.alerts.recordNoticeAttempt(notice.id, 'claim-1', { ...attempt, responseStatus: null, error: 'timeout' }, false, now + MINUTE + 10_000);
      expect(mine(await f.store.alerts.claimNotices(now + HOUR, now + HOUR + MINUTE, 'claim-3', 100_000))).toEqual([]); // sent: done
      const tries = await f.store.alerts.noticeAttempts(org.id, targetId, 10);
      expect(tries.map((a) => a.error).sort()).toEqual([null, 'timeout']);
    });

    it('claims round-robin: one of each organization in turn, one of each target within one, at most perOrg of one in flight', async () => {
      const [a, b] = [await f.org(), await f.org()];
      const now = f.clock.now();
      const queue = async (orgId: OrgId, targetId: string, n: number) => {
        const notices: NoticeDelivery[] = Array.from({ length: n }, () => ({
          id: `ntc_${randomUUID()}`,
          orgId,
          targetId: targetId as AlertTargetId,
          type: 'alert.test',
          body: '{}',
          createdAt: now - 1_000,
        }));
        for (const x of notices) await f.store.alerts.queueNotice(x);
      };
      // A: 30 notices to each of 2 targets, queued first (a FIFO would send all 60 before B's).
      await queue(a.id, 'atg_a1', 30);
      await queue(a.id, 'atg_a2', 30);
      await queue(b.id, 'atg_b1', 1);
      const ours = (claimed: { orgId: string; targetId: string }[]) => claimed.filter((n) => n.orgId === a.id || n.orgId === b.id);
      const claimed = ours(await f.store.alerts.claimNotices(now, now + MINUTE, 'fair-1', 100_000, { perOrg: 5, inFlight: {} }));
      expect(claimed.filter((n) => n.orgId === b.id)).toHaveLength(1); // B's first try is not behind A's 60
      const ofA = claimed.filter((n) => n.orgId === a.id);
      expect(ofA).toHaveLength(5); // A's share
      const perTarget = (ns: { targetId: string }[], t: string) => ns.filter((n) => n.targetId === t).length;
      expect(Math.abs(perTarget(ofA, 'atg_a1') - perTarget(ofA, 'atg_a2'))).toBeLessThanOrEqual(1); // A's targets in turn
      // A with 5 in flight gets no more; with 3, two more.
      expect(ours(await f.store.alerts.claimNotices(now, now + MINUTE, 'fair-2', 100_000, { perOrg: 5, inFlight: { [a.id]: 5 } }))).toEqual([]);
      expect(ours(await f.store.alerts.claimNotices(now, now + MINUTE, 'fair-3', 100_000, { perOrg: 5, inFlight: { [a.id]: 3 } }))).toHaveLength(2);
    });

    it('the state: a version ahead of the stored one only; hours due when one with waiting endpoints ended', async () => {
      const org = await f.org();
      const now = f.clock.now();
      const pending = [
        {
          env: 'test' as const,
          endpointId: newId('endpoint', f.clock),
          url: 'https://x.test/',
          consumerExternalId: 'c',
          failingSince: now,
          lastError: null,
          lastStatus: 500,
        },
      ];
      const state: AlertState = { version: 1, windows: { test: { windowStart: now, pending } }, lastNoticeAt: {}, notifiedStreaks: {} };
      await f.store.alerts.commitStep(org.id, [], state, []);
      await expect(f.store.alerts.commitStep(org.id, [], state, [])).rejects.toThrow(/moved on/);
      expect(await f.store.alerts.state(org.id)).toEqual(state);
      const due = async (at: number) => (await f.store.alerts.statesDue(at, 100_000)).includes(org.id as OrgId);
      expect(await due(now + HOUR - 1)).toBe(false);
      expect(await due(now + HOUR)).toBe(true);
    });
  });

  describe('readAlertState', () => {
    it("a state stored before environments: its one hour becomes its waiting endpoints' environments'", () => {
      const pending = [
        { env: 'test' as const, endpointId: 'ep_1' as never, url: 'u', consumerExternalId: 'c', failingSince: 1, lastError: null, lastStatus: null },
      ];
      const old = { version: 3, windowStart: 10, pending, lastNoticeAt: { ep_0: 5 }, notifiedStreaks: {} } as never;
      expect(readAlertState(old)).toEqual({ version: 3, windows: { test: { windowStart: 10, pending } }, lastNoticeAt: { ep_0: 5 }, notifiedStreaks: {} });
      expect(readAlertState({ version: 1, windowStart: 10, pending: [], lastNoticeAt: {}, notifiedStreaks: {} } as never).windows).toEqual({
        live: { windowStart: 10, pending: [] },
      });
    });
  });
}
