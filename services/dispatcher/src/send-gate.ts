// Who may send now, per endpoint: the step between a claim and a send. Kept apart so the rules
// per endpoint (slots today; ordered lanes, adaptive limits, Retry-After holds next) change here alone.
import type { Context } from '@opentelemetry/api';
import type { DeliveryId, Tenant } from '@wirehook/core';
import type { DeliveryJob } from '@wirehook/store';
import { EndpointSlots } from './endpoint-slots.ts';
import { ParkedWakeups } from './parked-wakeups.ts';

/** A claimed delivery as the gate sees it: what its rules decide by. */
export interface GateEntry {
  id: DeliveryId;
  endpointId: string;
  /** Its tenant (an endpoint has one): a waiting delivery's turn is not claimed while it is held (TenantHolds). */
  tenant?: Tenant;
}

/** The gate's view of a claimed delivery. */
export function gateEntry(job: DeliveryJob): GateEntry {
  return { id: job.delivery.id, endpointId: job.endpoint.id, tenant: job.tenant };
}

/** What follows a freed turn of an endpoint. */
export interface Turn {
  endpointId: string;
  /** The waiting delivery that takes the turn (to be claimed again), in its wake-up's trace; none when nothing waits. */
  next: { id: DeliveryId; trace: Context; tenant?: Tenant } | undefined;
  /** Deliveries of the endpoint were left in the store while its parking was full: sweep for them. */
  refill: boolean;
}

/** Wake-ups parked per endpoint slot: enough to keep a fast endpoint busy between sweeps. */
const PARKED_PER_SLOT = 4;

/**
 * Who may send now, per endpoint. The dispatcher asks before each send of a claimed delivery
 * (`tryEnter`); one not let in waits here (`wait`, bounded per endpoint, in arrival order) and
 * the gate is told as each send ends (`ended`), which hands the freed turn to the next one.
 * The rule today is a fixed number of slots per endpoint, so one slow or failing customer
 * cannot take every connection. This is the one place that decides, so ordered per-key lanes
 * and adaptive limits (in-flight AIMD, rate limits, Retry-After holds) belong here, not in
 * the dispatcher.
 */
export class SendGate {
  readonly #slots: EndpointSlots;
  readonly #parked: ParkedWakeups;
  /** Endpoints whose freed turn a waiting delivery is taking over (being claimed), with how many. */
  readonly #passing = new Map<string, number>();
  /** The slots of an endpoint usable now: fewer while its adaptive in-flight limit is cut (EndpointThrottle). */
  readonly #capOf: (endpointId: string) => number;

  constructor(slotsPerEndpoint: number, capOf: (endpointId: string) => number = () => slotsPerEndpoint) {
    this.#capOf = capOf;
    this.#slots = new EndpointSlots(slotsPerEndpoint);
    this.#parked = new ParkedWakeups(slotsPerEndpoint * PARKED_PER_SLOT);
  }

  /** Due deliveries of one endpoint it can hold at once, sending or waiting: a sweep fetches no more of one endpoint. */
  get perEndpoint(): number {
    return this.#slots.perEndpoint + this.#parked.perEndpoint;
  }

  /** Deliveries waiting here for a turn, across endpoints. */
  get waiting(): number {
    return this.#parked.size;
  }

  /**
   * A sweep fetched as many of `endpointId`'s due deliveries as this gate holds: the store may
   * have more, so its queue draining asks for a sweep (`Turn.refill`), as after `hasRoom` refused.
   */
  filledShare(endpointId: string): void {
    this.#parked.markOverflowed(endpointId);
  }

  /**
   * Whether `more` + 1 wake-ups for `endpointId` could be used now (a sweep counts what it
   * published for the endpoint): its free slots and free parking. False when they are used up:
   * a wake-up would only be claimed and given back. The endpoint is then marked, and its queue
   * draining asks for a sweep (`Turn.refill`).
   */
  hasRoom(endpointId: string, more = 0): boolean {
    // The slots usable now: a cut limit's, not all of them (else each sweep would publish a
    // wake-up per idle slot, each claimed only to be released again while parking is full).
    const usable = Math.min(this.#slots.perEndpoint, this.#capOf(endpointId));
    // A turn being passed on (its taker being claimed) is a slot in use.
    const inUse = this.#slots.inUse(endpointId) + (this.#passing.get(endpointId) ?? 0);
    if (more < Math.max(0, usable - inUse) + this.#parked.freeOf(endpointId)) return true;
    this.#parked.markOverflowed(endpointId);
    return false;
  }

  /**
   * A delivery of `endpointId` that its full parking refused was written back to the store.
   * @returns true when its queue has drained to half meanwhile (the sweep that drain asked for may
   * have read the store before the write: the caller sweeps again); else the endpoint is marked,
   * and its drain to half asks (`Turn.refill`). Never a sweep while the queue is over half: each
   * would list the endpoint's oldest, claimed only to be given back while its parking is full.
   */
  leftInStore(endpointId: string): boolean {
    if (this.#parked.drainedToHalf(endpointId)) return true;
    this.#parked.markOverflowed(endpointId);
    return false;
  }

  /**
   * Lets `entry` send now, taking a slot of its endpoint; false when it must wait. A job
   * handed over by intake queues behind the endpoint's waiting deliveries (and one taking
   * over a freed turn), so new messages never overtake older ones waiting for that endpoint.
   */
  tryEnter(entry: GateEntry, handedOver: boolean): boolean {
    const queued = handedOver && (this.#parked.has(entry.endpointId) || this.#passing.has(entry.endpointId));
    return !queued && this.#slots.tryTake(entry.endpointId, this.#capOf(entry.endpointId));
  }

  /**
   * Parks `entry` until a turn of its endpoint, continuing `trace` then. @returns false when
   * the endpoint's parking is full: it then waits in the store (see `hasRoom`).
   */
  wait(entry: GateEntry, trace: Context): boolean {
    return this.#parked.park(entry.endpointId, entry.id, trace, entry.tenant);
  }

  /** A send let in by `tryEnter` ended: its slot is free, and the next waiting delivery's turn comes. */
  ended(entry: GateEntry): Turn {
    this.#slots.give(entry.endpointId);
    return this.passOn(entry.endpointId);
  }

  /**
   * A turn of `endpointId` is free: the next waiting delivery takes it. Also for a turn its
   * taker could not use (its claim found nothing). Each turn given must be settled.
   */
  passOn(endpointId: string): Turn {
    const { id, trace, tenant, refill } = this.#parked.next(endpointId);
    if (id === undefined) return { endpointId, next: undefined, refill };
    // The freed slot is this delivery's while it is claimed: a hand-off must not take it.
    this.#passing.set(endpointId, (this.#passing.get(endpointId) ?? 0) + 1);
    return { endpointId, next: tenant === undefined ? { id, trace } : { id, trace, tenant }, refill };
  }

  /** The delivery given a turn of `endpointId` was claimed and let in, or not: hand-offs may enter again. */
  turnSettled(endpointId: string): void {
    const left = (this.#passing.get(endpointId) ?? 1) - 1;
    if (left > 0) this.#passing.set(endpointId, left);
    else this.#passing.delete(endpointId);
  }
}
