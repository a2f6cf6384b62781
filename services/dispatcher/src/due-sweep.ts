// What is due: the sweep that finds due deliveries in the store and puts them on their way,
// the dispatcher's first step. Its pace (timer, behind, places freed, refill) is decided here alone.
import { DISPATCH_SUBJECT, dispatchJobHeaders, encodeDispatchJob, type Bus } from '@wirehook/bus';
import { tenantKey, type Clock } from '@wirehook/core';
import type { Logger } from '@wirehook/platform';
import type { DueDelivery, Store } from '@wirehook/store';
import type { Counter } from 'prom-client';
import type { AttemptPlaces } from './attempt-places.ts';
import type { SendGate } from './send-gate.ts';
import type { TenantShares } from './tenant-shares.ts';
import type { WakeupLedger } from './wakeup-ledger.ts';

export interface DueSweepDeps {
  store: Store;
  bus: Pick<Bus, 'publish'>;
  clock: Clock;
  logger: Logger;
  /** What is already on its way; the sweep notes what it publishes. */
  ledger: WakeupLedger;
  /** This dispatcher's places: a sweep publishes no more than are free. */
  places: AttemptPlaces;
  /** Whether an endpoint can use a wake-up now, and how many of one endpoint's due deliveries to fetch. */
  gate: Pick<SendGate, 'perEndpoint' | 'hasRoom' | 'filledShare'>;
  /** Whether a tenant has room in its share of the places: the sweep lists and publishes no more of a tenant's than it may send. */
  shares: Pick<TenantShares, 'hasRoom' | 'perTenant' | 'fullTenants' | 'mayHaveMore' | 'heldUntil'>;
  /** How often the store is swept. */
  intervalMs: number;
  /** Most due deliveries one sweep publishes. */
  batch: number;
  /** While behind, a sweep follows once 1/refillShare of the places are free (refillAt): 2, half, unless the store groups completions. */
  refillShare: number;
  /** Sweeps that read the store, by what asked for them (`wirehook_dispatch_sweeps_total`). */
  sweeps: Counter<'reason'>;
}

/**
 * What asked for a sweep: the dispatcher's start, its timer, places freed while behind (or a due
 * delivery left in the store: a hand-off given back, a wake-up with no place), an endpoint's queue
 * or a tenant's share drained with more in the store, or a time deliveries were put off to (a
 * Retry-After, a limit, a tenant's hold). On MongoDB each sweep costs operations on the due queue:
 * the counter says which of these sets their pace. Asks made while a sweep runs make one more,
 * counted for the first of them. (`manual`: a caller's own, the tests'.)
 */
export const SWEEP_REASONS = ['start', 'interval', 'behind', 'refill', 'put_off', 'manual'] as const;
export type SweepReason = (typeof SWEEP_REASONS)[number];

/** At least this many places freed before a sweep follows, or half of fewer (with few places a share would sweep at nearly every send's end). */
const REFILL_AT_LEAST = 32;

/**
 * How many of `places` must be free, while behind, before the next sweep: `1/share` of them —
 * not one (a sweep is an indexed query: one refills many) — but at least REFILL_AT_LEAST, or half
 * when that is fewer (with few places an eighth would sweep at nearly every finished send).
 */
export function refillAt(places: number, share: number): number {
  return Math.max(Math.ceil(places / share), Math.min(Math.ceil(places / 2), REFILL_AT_LEAST));
}

/**
 * The share for a store that answers a moment's completions together (`Store.groupsWrites`: SQLite's group commit):
 * an eighth. At half load a page's places were freed together, and the next page was claimed,
 * sent and completed in step with it: a fan-out's drain went in convoys of 512, every place free
 * between two, the threads idle in turn. An eighth keeps pages at different steps at once:
 * fan-out's drain +8 % deliveries a second at the same CPU a delivery, a sixteenth no better
 * (docs/benchmarks.md, fifty-ninth session). Where completions are answered one by one
 * (MongoDB) there is no such convoy, and each sweep costs operations on the due queue: half.
 */
export const REFILL_SHARE_GROUPED = 8;

/** Put-off times closer than this share one sweep. */
const WAKE_GRAIN_MS = 20;
/** Most put-off times a dispatcher keeps a sweep for. */
const MAX_WAKE_TIMES = 1_000;

/**
 * What is due: the store is the truth, the bus only says "this may be due". The sweep finds
 * due deliveries in the store (new ones whose wake-up was lost, retries, leases of a crashed
 * dispatcher) and publishes a wake-up for each one not already on its way, at most as many as
 * this dispatcher has free places, none for an endpoint with no room, and no more of a tenant's
 * than its share of the places has room for (the store lists at most a share of each). It runs on a timer;
 * while behind (more may be due than is on its way) it runs again as soon as enough places are
 * free (refillAt), so a backlog drains at sending speed, not at one batch per tick.
 */
export class DueSweep {
  readonly #deps: DueSweepDeps;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;
  /** More may be due than is on its way: the last sweep was cut off, or a wake-up was dropped. */
  #behind = false;
  /**
   * Counts the times more became due than is on its way (#markBehind). A sweep's read that began
   * before one may not have seen it (a release written meanwhile), so that sweep leaves `behind` set.
   */
  #behindMarks = 0;
  #stopped = false;
  /** A sweep was asked for while one was under way (#sweepSoon): one more follows it, for the first reason asked. */
  #again: SweepReason | undefined;
  /** Times deliveries were put off to (held or throttled), earliest first; a timer sweeps at the first. */
  #wakeTimes: number[] = [];
  #wakeTimer: NodeJS.Timeout | undefined;

  constructor(deps: DueSweepDeps) {
    this.#deps = deps;
  }

  /** Starts the timer and sweeps once. */
  async start(): Promise<void> {
    this.#timer = setInterval(() => void this.sweep('interval'), this.#deps.intervalMs);
    this.#timer.unref();
    await this.sweep('start');
  }

  /** Publishes nothing more; resolves once a sweep under way has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    clearTimeout(this.#wakeTimer);
    await this.#sweeping;
  }

  /**
   * Publishes the due deliveries not already on their way; one sweep at a time (a call during
   * one joins it: not counted, it asked for nothing that sweep does not do).
   */
  sweep(reason: SweepReason = 'manual'): Promise<void> {
    if (this.#sweeping === undefined) {
      this.#sweeping = this.#sweepOnce(reason).finally(() => {
        this.#sweeping = undefined;
        const again = this.#again;
        this.#again = undefined;
        if (again !== undefined && !this.#stopped) void this.sweep(again);
      });
    }
    return this.#sweeping;
  }

  /**
   * Sweeps once the caller's turn is over, or once the sweep under way has ended: a place freed
   * or a queue drained during a sweep may come after it read the free places, and joined to it
   * would be lost until the tick.
   */
  #sweepSoon(reason: SweepReason): void {
    if (this.#sweeping !== undefined) {
      this.#again ??= reason;
      return;
    }
    // After the caller's turn: a send's end asks for a sweep (its tenant's place given back)
    // before it gives its own place back, and a sweep starting at once would read none free.
    queueMicrotask(() => {
      if (this.#stopped) return;
      if (this.#sweeping === undefined) void this.sweep(reason);
      else this.#again ??= reason;
    });
  }

  /**
   * A due delivery was left in the store (a wake-up dropped, a hand-off's release written): more
   * is due than is on its way. Swept for now if enough places are free, else as they free: with
   * every send ended, no freed place would ask, and the delivery would wait for the tick.
   */
  fellBehind(): void {
    this.#markBehind();
    this.placeFreed();
  }

  #markBehind(): void {
    this.#behind = true;
    this.#behindMarks++;
  }

  /** An attempt gave its place back: while behind, and once enough places are free (refillAt), sweep again. */
  placeFreed(): void {
    const { places, refillShare } = this.#deps;
    if (this.#behind && !this.#stopped && places.free >= refillAt(places.size, refillShare)) this.#sweepSoon('behind');
  }

  /**
   * Deliveries of an endpoint were left in the store while its queue was full, and it has
   * drained: fetch them now (marked behind too, so a sweep already running is followed by another).
   */
  refill(reason: SweepReason = 'refill'): void {
    if (this.#stopped) return;
    this.#markBehind();
    this.#sweepSoon(reason);
  }

  /**
   * A delivery was put off until `at` (held by a Retry-After, or throttled): sweep then rather
   * than at the next tick, so an endpoint's limit is used as it frees. Times within
   * WAKE_GRAIN_MS of one already noted share its sweep; at most MAX_WAKE_TIMES are kept
   * (later ones wait for the tick).
   */
  wakeAt(at: number): void {
    if (this.#stopped) return;
    const times = this.#wakeTimes;
    if (times.some((t) => Math.abs(t - at) < WAKE_GRAIN_MS) || times.length >= MAX_WAKE_TIMES) return;
    const index = times.findIndex((t) => t > at);
    times.splice(index === -1 ? times.length : index, 0, at);
    if (times[0] === at) this.#armWake();
  }

  #armWake(): void {
    clearTimeout(this.#wakeTimer);
    const first = this.#wakeTimes[0];
    if (first === undefined) return;
    this.#wakeTimer = setTimeout(
      () => {
        // The first time is served (a clock not there yet leaves it to the tick), and all passed.
        const now = this.#deps.clock.now();
        this.#wakeTimes = this.#wakeTimes.slice(1).filter((t) => t > now);
        this.refill('put_off');
        this.#armWake();
      },
      Math.max(0, first - this.#deps.clock.now()),
    );
    this.#wakeTimer.unref();
  }

  /** Publishes a wake-up for each of `due` there is room for, up to `room` in the sweep (`page` counts them). */
  async #publish(due: readonly DueDelivery[], room: number, now: number, page: PagePublished): Promise<void> {
    const { bus, ledger, gate, shares } = this.#deps;
    for (const [i, { id, endpointId, tenant }] of due.entries()) {
      if (page.count >= room) {
        // Cut at the room, not at the page: what is left of it and not on its way waits for the next sweep.
        page.leftOver ||= due.slice(i).some((d) => !ledger.isOnItsWay(d.id, now));
        break;
      }
      if (this.#stopped || ledger.isOnItsWay(id, now)) continue;
      // Its tenant's share is taken (with what this sweep published for it): left in the store,
      // else claimed only to be given back. The tenant's sends ending ask for the next sweep.
      const ofTenant = page.ofTenant.get(tenantKey(tenant)) ?? 0;
      if (!shares.hasRoom(tenant, ofTenant)) {
        page.overShare++;
        continue;
      }
      // No room (its free slots and parking, less what this sweep published for it): left in the
      // store, else claimed only to be given back; the sweep that follows its queue draining finds it.
      const ofEndpoint = page.ofEndpoint.get(endpointId) ?? 0;
      if (!gate.hasRoom(endpointId, ofEndpoint)) continue;
      ledger.note(id, now);
      page.count++;
      page.ofTenant.set(tenantKey(tenant), ofTenant + 1);
      page.ofEndpoint.set(endpointId, ofEndpoint + 1);
      try {
        await bus.publish(DISPATCH_SUBJECT, encodeDispatchJob(id), { headers: dispatchJobHeaders(tenant) });
      } catch (err) {
        // Not on its way after all: the next sweep publishes it again.
        ledger.forget(id);
        throw err;
      }
    }
  }

  async #sweepOnce(reason: SweepReason): Promise<void> {
    const { store, clock, logger, ledger, places, gate, shares, batch } = this.#deps;
    try {
      const now = clock.now();
      ledger.expire(now);
      // Tenants held for a store overload: a sweep when the first hold ends — asked again by every sweep while one is
      // on (this one's room or not), so a wake absorbed by an earlier one, or fired a moment early, is not lost.
      const heldUntil = shares.heldUntil();
      if (heldUntil !== null) this.wakeAt(heldUntil);
      // Publish what can be taken now: a wake-up beyond the free places would only be dropped.
      // Only this dispatcher's own state counts: with replicas, another may take what it publishes.
      const room = Math.min(batch, places.free);
      if (room <= 0) return;
      // Counted once it reads the store (with no place free it reads nothing).
      this.#deps.sweeps.inc({ reason });
      // Over-fetch by what is already on its way and still listed as due (queued, parked), so
      // new work is still found; sends in flight are leased, so no page lists them.
      const onItsWay = Math.min(ledger.listed, batch + places.size);
      const limit = room + onItsWay;
      // At most what one endpoint can use (its slots and its parking) from each endpoint, and a
      // tenant's share from each tenant (over-fetched alike: a tenant's parked wake-ups are its
      // oldest): a tenant's backlog over more endpoints than a page holds keeps another tenant's
      // due deliveries (its retries: no wake-up brings them) out of it no further than what the
      // store reads for the page (DeliveryRepo.due).
      const perTenant = shares.perTenant + onItsWay;
      // None of a tenant holding its whole share here: listed, it would take the page's room
      // (and on MongoDB, a take and a move of each of its endpoints) for nothing.
      const full = shares.fullTenants();
      // Whatever they have due waits unlisted: their sends ending (to half the share) sweep for it.
      for (const tenant of full) shares.mayHaveMore(tenant);
      const marks = this.#behindMarks;
      const due = await store.deliveries.due(now, limit, gate.perEndpoint, perTenant, full);
      const cut = due.length >= limit;
      // Still behind if more became due while the store was read: the read may have missed it.
      this.#behind = cut || this.#behindMarks !== marks;
      // A tenant that filled its part of the page may have more in the store: its sends ending
      // (down to half its share) ask for the next sweep, as an endpoint's queue draining does.
      for (const { tenant } of filled(due, (d) => tenantKey(d.tenant), perTenant)) shares.mayHaveMore(tenant);
      // An endpoint that filled its share of the page may have more in the store (a resumed
      // endpoint's backlog): its queue draining to half asks for the next sweep. Without this a
      // lone endpoint's backlog drained one share per tick — 10,000 released deliveries took two
      // minutes. (Not `behind`: that would sweep at every finished send while its slots are full.)
      for (const { endpointId } of filled(due, (d) => d.endpointId, gate.perEndpoint)) gate.filledShare(endpointId);
      const page: PagePublished = { count: 0, ofTenant: new Map(), ofEndpoint: new Map(), overShare: 0, leftOver: false };
      await this.#publish(due, room, now, page);
      // The page was cut and tenants near their share took some of it (each up to its share):
      // other tenants' due deliveries may lie behind. One more page, of each endpoint's oldest
      // (a seek per endpoint, not a read of the backlog), finds them; their endpoints' queues
      // draining ask for the rest.
      if (cut && page.overShare > 0 && page.count < room && !this.#stopped) {
        const heads = await store.deliveries.due(now, limit, 1, perTenant, full);
        for (const { endpointId } of heads) gate.filledShare(endpointId);
        await this.#publish(heads, room, now, page);
      }
      // Cut at the room with due deliveries of the page on no one's way: behind, cut page or not.
      if (page.leftOver) this.#behind = true;
    } catch (err) {
      logger.error({ err }, 'sweep failed; trying again at the next tick');
    }
  }
}

/** What one sweep published: in all, per tenant, and how many it left for their tenant's share. */
interface PagePublished {
  count: number;
  ofTenant: Map<string, number>;
  /** Published per endpoint: no more than its free slots and parking (SendGate.hasRoom). */
  ofEndpoint: Map<string, number>;
  overShare: number;
  /** Due deliveries it listed, not on their way, and did not publish for want of room. */
  leftOver: boolean;
}

/** The page's deliveries, one for each key (by `keyOf`: an endpoint, a tenant) with `share` on it — as many as `due` gives one. */
function filled(due: readonly DueDelivery[], keyOf: (d: DueDelivery) => string, share: number): DueDelivery[] {
  const counts = new Map<string, { first: DueDelivery; n: number }>();
  for (const d of due) {
    const seen = counts.get(keyOf(d)) ?? { first: d, n: 0 };
    seen.n++;
    counts.set(keyOf(d), seen);
  }
  return [...counts.values()].filter(({ n }) => n >= share).map(({ first }) => first);
}
