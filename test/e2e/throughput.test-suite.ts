// Throughput control per endpoint end to end, in real seconds: a rate limit holds an
// endpoint to its limit over any one-second window while an unlimited one beside it is not
// slowed; a 429 with Retry-After holds every send to its endpoint (a fixed_ip one's too, whose
// answer comes back through the egress relay); a receiver with a fixed capacity is kept near it
// by the adaptive in-flight limit. Run in embedded mode
// (throughput.test.ts) and cluster mode (test/cluster/throughput.cluster.test.ts).
import { describe, expect, it } from 'vitest';
import { eventually, maxInWindow } from '@wirehook/testkit';
import { startReceiver, type NamedReceiver } from '../support/receivers.ts';
import { type DeliveryHarness, deliverySuiteContext } from '../support/delivery-suite-context.ts';

/** Registers the suite against the Wirehook `start` brings up. */
export function describeThroughputSuite(mode: string, start: () => Promise<DeliveryHarness>): void {
  describe(`throughput control (${mode})`, () => {
    const suite = deliverySuiteContext(start);
    const { endpoint, send, extra } = suite;
    const receiver = async (): Promise<NamedReceiver> => {
      const r = await startReceiver();
      extra.push(r);
      return r;
    };

    it('rate_limit: 1 and 10,000 are accepted, PATCH null clears it; 0, 10,001, 1.5 and "10" are 422 invalid', async () => {
      const low = await endpoint({ rate_limit: 1 });
      const high = await endpoint({ rate_limit: 10_000 });
      expect((await suite.t.api.get(`/v1/endpoints/${high.id}`)).body.rate_limit).toBe(10_000);
      const cleared = await suite.t.api.patch(`/v1/endpoints/${low.id}`, { rate_limit: null });
      expect(cleared.body.rate_limit).toBeNull();
      expect((await suite.t.api.get(`/v1/endpoints/${low.id}`)).body.throughput).toEqual({
        rate_limit: null,
        concurrency: null,
        in_flight: 0,
        held_until: null,
      });
      for (const bad of [0, 10_001, 1.5, '10']) {
        const res = await suite.t.api.patch(`/v1/endpoints/${low.id}`, { rate_limit: bad });
        expect(res.status).toBe(422);
        expect(res.body).toMatchObject({ error: 'invalid' });
        expect(res.body.message).toContain('rate_limit');
      }
    });

    it('100 messages to a 10/s endpoint take ~10 s, at most 10 per sliding second (attempt times); an unlimited one beside it gets 100 at once', async () => {
      const limited = await receiver();
      const open = await receiver();
      const slow = await endpoint({ rate_limit: 10 }, limited.url());
      const fast = await endpoint({}, open.url());
      expect((await suite.t.api.get(`/v1/endpoints/${slow.id}`)).body).toMatchObject({ rate_limit: 10, throughput: { rate_limit: 10, held_until: null } });
      const slowIds: string[] = [];
      await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const [sent] = await Promise.all([send(slow.consumer, { i }), send(fast.consumer, { i })]);
          slowIds.push(sent.body.id as string);
        }),
      );
      await eventually(() => expect(open.receiver.requests).toHaveLength(100), 20_000, 50);
      await eventually(() => expect(limited.receiver.requests).toHaveLength(100), 30_000, 100);
      const times = limited.receiver.requests.map((r) => r.receivedAt).sort((a, b) => a - b);
      const span = times.at(-1)! - times[0]!;
      // 100 at 10 per second: the 100th may go 9 s after the first (sent at once), not before.
      expect(span).toBeGreaterThanOrEqual(8_900);
      expect(span).toBeLessThan(13_000);
      // Each attempt's `at` is the time its endpoint's rate log counted it at (taken before the
      // Kv call, and the time it is signed with; it was taken after the Kv's answer, so a stall
      // packed attempts' times: 13 were allowed). The log lets in at most 10 whose times lie
      // within any one second, so the attempts' own times hold 10 exactly, stalls or not: they
      // delay admissions, never pack their times. In cluster mode that needs Redis to run the two
      // dispatchers' calls in the order of their times (the log forgets by the caller's time).
      // Without the limit all 100 go within a second.
      // Received is not yet recorded: an attempt is written after the receiver's answer, so the
      // last ones to arrive may have none yet.
      const starts = await eventually(
        () =>
          Promise.all(
            slowIds.map(async (id) => {
              const attempt = (await suite.t.api.get(`/v1/messages/${id}`)).body.deliveries[0].attempts[0];
              expect(attempt, id).toBeDefined();
              return attempt.at as number;
            }),
          ),
        10_000,
        100,
      );
      expect(
        maxInWindow(
          starts.sort((a, b) => a - b),
          1_000,
        ),
      ).toBeLessThanOrEqual(10);
      // The unlimited endpoint was not held back by the limited one's queue: held back, it would get its
      // 100 at the limited one's pace, half of them after the limited one's 50th (which the limit keeps
      // ≥ 4.9 s after its first); free, all of them come before it. A bound in the run's own time, with
      // room for a busy machine's slow sends: at most 10 late (all 100 were required before, and a
      // clean-clone run of 2026-12-05 had its last 392 ms late; before that 5 s of wall clock, broken at 5.67 s).
      const late = open.receiver.requests.filter((r) => r.receivedAt >= times[49]!).length;
      expect(late).toBeLessThanOrEqual(10);
    }, 60_000);

    /** A 429 with Retry-After: 4 to an endpoint made of `fields`: nothing reaches it for 4 s, then everything does. */
    async function heldByRetryAfter(fields: Record<string, unknown>, via: 'direct' | 'relay'): Promise<void> {
      const rx = await receiver();
      let first = true;
      rx.receiver.respondWith(() => {
        if (!first) return { status: 204 };
        first = false;
        return { status: 429, headers: { 'retry-after': '4' } };
      });
      const ep = await endpoint(fields, rx.url());
      const answered = (await send(ep.consumer, { n: 0 })).body.id as string;
      await eventually(() => expect(rx.receiver.requests).toHaveLength(1), 10_000, 20);
      const answeredAt = rx.receiver.requests[0]!.receivedAt;
      await eventually(async () => {
        const detail = (await suite.t.api.get(`/v1/endpoints/${ep.id}`)).body;
        expect(detail.throughput.held_until).toBeGreaterThan(answeredAt);
      });
      // The hold is written before the attempt, which is written after the receiver's answer.
      await eventually(async () => expect((await suite.detail(answered)).deliveries[0].attempts[0]).toMatchObject({ via, response_status: 429 }));
      for (let i = 1; i <= 10; i++) await send(ep.consumer, { n: i });
      await eventually(() => expect(rx.receiver.requests).toHaveLength(12), 20_000, 50);
      const later = rx.receiver.requests.slice(1).map((r) => r.receivedAt - answeredAt);
      // Retry-After counts from when the answer was read (a few ms after the request arrived).
      expect(Math.min(...later)).toBeGreaterThanOrEqual(3_950);
      // The ten others go when the hold ends, the answered one at its policy's 5 s.
      expect(Math.max(...later)).toBeLessThan(7_000);
      expect((await suite.t.api.get(`/v1/endpoints/${ep.id}`)).body.throughput.held_until).toBeNull();
    }

    it('a 429 with Retry-After: 4 — nothing reaches the endpoint for 4 s, then everything does', () => heldByRetryAfter({}, 'direct'), 60_000);

    // The relay hands the header back (over gRPC in cluster mode): the same hold.
    it(
      'fixed_ip: a 429 with Retry-After: 4 through the egress relay holds the endpoint just the same',
      () => heldByRetryAfter({ fixed_ip: true }, 'relay'),
      60_000,
    );

    /**
     * An endpoint whose receiver answered its first request 429 with Retry-After: 3600, held
     * (`held_until` an hour on), and a second message sent meanwhile, put off to the hold's end.
     */
    async function heldForAnHour() {
      const rx = await receiver();
      let first = true;
      rx.receiver.respondWith(() => {
        if (!first) return { status: 204 };
        first = false;
        return { status: 429, headers: { 'retry-after': '3600' } };
      });
      const ep = await endpoint({}, rx.url());
      const answered = (await send(ep.consumer, { n: 0 })).body.id as string;
      await eventually(() => expect(rx.receiver.requests).toHaveLength(1), 10_000, 20);
      const answeredAt = rx.receiver.requests[0]!.receivedAt;
      await eventually(async () => {
        const held = (await suite.t.api.get(`/v1/endpoints/${ep.id}`)).body.throughput.held_until as number | null;
        expect(held).toBeGreaterThan(answeredAt + 3_500_000);
      });
      const putOff = (await send(ep.consumer, { n: 1 })).body.id as string;
      // Claimed and put off to the hold's end (or not yet claimed): either way held, not sent.
      await eventually(async () => expect((await suite.detail(putOff)).deliveries[0].status).toBe('pending'));
      expect(rx.receiver.requests).toHaveLength(1);
      return { rx, ep, answered, putOff };
    }

    /**
     * Within 15 s of `from`, `r` gets `ids`: an hour's hold would keep them for the hour, a rate
     * limit of 1/s the last of 38 for 37 s. (5 s was missed in cluster mode beside another suite.)
     */
    async function arrivesSoon(r: NamedReceiver, ids: string[], from: number): Promise<void> {
      await eventually(() => expect(ids.every((id) => suite.requestsFor(r, id).length > 0)).toBe(true), 15_000, 20);
      for (const id of ids) expect(suite.requestsFor(r, id)[0]!.receivedAt - from).toBeLessThan(15_000);
    }

    it('a Retry-After hold ends with a PATCH to a new URL: the put-off message goes there at once', async () => {
      const { ep, putOff } = await heldForAnHour();
      const moved = await receiver();
      const patchedAt = Date.now();
      const res = await suite.t.api.patch(`/v1/endpoints/${ep.id}`, { url: moved.url() });
      expect(res.status).toBe(200);
      expect((await suite.t.api.get(`/v1/endpoints/${ep.id}`)).body.throughput.held_until).toBeNull();
      await arrivesSoon(moved, [putOff], patchedAt);
    }, 60_000);

    it('a Retry-After hold ends with a pause and resume: the put-off message goes at once', async () => {
      const { rx, ep, putOff } = await heldForAnHour();
      expect((await suite.t.api.patch(`/v1/endpoints/${ep.id}`, { status: 'paused' })).status).toBe(200);
      const resumedAt = Date.now();
      expect((await suite.t.api.patch(`/v1/endpoints/${ep.id}`, { status: 'active' })).status).toBe(200);
      expect((await suite.t.api.get(`/v1/endpoints/${ep.id}`)).body.throughput.held_until).toBeNull();
      await arrivesSoon(rx, [putOff], resumedAt);
    }, 60_000);

    it('a Retry-After hold ends with a manual retry (202, next_attempt_at now): the retried delivery and the put-off message go at once', async () => {
      const { rx, ep, answered, putOff } = await heldForAnHour();
      const deliveryId = (await suite.detail(answered)).deliveries[0].id as string;
      const retriedAt = Date.now();
      const res = await suite.t.api.post(`/v1/deliveries/${deliveryId}/retry`, {});
      expect(res.status).toBe(202);
      expect(res.body.next_attempt_at).toBeLessThanOrEqual(Date.now());
      expect((await suite.t.api.get(`/v1/endpoints/${ep.id}`)).body.throughput.held_until).toBeNull();
      await arrivesSoon(rx, [answered, putOff], retriedAt);
      expect(suite.requestsFor(rx, answered)).toHaveLength(2);
    }, 60_000);

    it('40 messages at rate_limit 1, then the limit removed (PATCH null): the rest go at once, not a second apart', async () => {
      const rx = await receiver();
      const ep = await endpoint({ rate_limit: 1 }, rx.url());
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) ids.push((await send(ep.consumer, { i })).body.id as string);
      // The limit is at work: the second arrives about a second after the first.
      await eventually(() => expect(rx.receiver.requests.length).toBeGreaterThanOrEqual(2), 10_000, 20);
      const removedAt = Date.now();
      const left = 40 - rx.receiver.requests.length;
      expect((await suite.t.api.patch(`/v1/endpoints/${ep.id}`, { rate_limit: null })).status).toBe(200);
      // At one a second the last would come a second per message left later: more than arrivesSoon's 15 s.
      expect(left).toBeGreaterThan(16);
      await arrivesSoon(rx, ids, removedAt);
    }, 60_000);

    // Retried once: a real-time goodput bound (90 % of 40/s at first) that one CI run measured at 35.1/s, passing alone; its
    // figure belongs in `pnpm bench` (it is the capacity scenario there), the bound here only catches a collapse.
    it('a receiver of capacity 4 (429 above 4 in flight): after 10 s, goodput ≥ 85 % of it (80 % over processes), < 5 % 429s; a trickle won’t grow its limit', {
      retry: 1,
      timeout: 120_000,
    }, async () => {
      const rx = await receiver();
      const capacity = 4;
      const serviceMs = 100;
      let inFlight = 0;
      const log: { at: number; ok: boolean; tookMs?: number }[] = [];
      rx.receiver.respondWith(async () => {
        if (inFlight >= capacity) {
          log.push({ at: Date.now(), ok: false });
          return { status: 429 };
        }
        inFlight++;
        const began = Date.now();
        await new Promise((resolve) => setTimeout(resolve, serviceMs));
        inFlight--;
        log.push({ at: Date.now(), ok: true, tookMs: Date.now() - began });
        return { status: 204 };
      });
      const ep = await endpoint({ retry: { count: 0, interval: '1m' } }, rx.url());
      const started = Date.now();
      // 20 s at capacity is 800 sends.
      for (let i = 0; i < 800; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => send(ep.consumer, { n: i + j })));
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 20_000 - Date.now())));
      const settled = log.filter((r) => r.at >= started + 10_000 && r.at < started + 20_000);
      const windowS = 10;
      const goodput = settled.filter((r) => r.ok).length / windowS;
      const refused = settled.filter((r) => !r.ok).length / settled.length;
      // Capacity: 4 in flight of 100 ms each, 40 per second — as the receiver served them: on a
      // busy machine its timers run late and each takes longer, and it can take fewer than 40.
      const served = settled.filter((r) => r.ok);
      const meanServiceMs = served.reduce((sum, r) => sum + r.tookMs!, 0) / Math.max(1, served.length);
      const receiverCapacity = Math.min(40, (capacity * 1000) / meanServiceMs);
      expect(receiverCapacity).toBeGreaterThan(0.75 * 40); // the receiver itself kept most of its speed
      // 85 % in one process (89 % measured beside the other CI lane at a slow hour). Cluster mode beside another
      // suite measured 82–88 % (each send's turn there waits for Redis and the store): 80 %. A limit one below the
      // capacity (3 in flight, at most 75 %) fails both.
      const floor = mode.startsWith('embedded') ? 0.85 : 0.8;
      expect(goodput, `goodput ${goodput}/s, the receiver's capacity ${receiverCapacity.toFixed(1)}/s`).toBeGreaterThanOrEqual(floor * receiverCapacity);
      expect(refused).toBeLessThan(0.05);
      // Then 80 more at 20/s, about 2 in flight: the limit must not grow on successes of an
      // endpoint that does not use it (it would climb toward the slots and overload the receiver).
      await eventually(() => expect(log).toHaveLength(800), 30_000, 100);
      for (let i = 0; i < 80; i++) {
        await send(ep.consumer, { n: 800 + i });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await eventually(() => expect(log).toHaveLength(880), 30_000, 100);
      const { concurrency } = (await suite.t.api.get(`/v1/endpoints/${ep.id}`)).body.throughput;
      expect(concurrency).not.toBeNull();
      expect(concurrency).toBeLessThanOrEqual(capacity + 1);
    });
  });
}
