// The order of one attempt's steps — place, claim, gate, send, record, turn handed on — apart
// from dispatcher.ts, which holds what wakes attempts (bus, sweep, intake) and the lifecycle.
import { context, type Context } from '@opentelemetry/api';
import type { Clock, DeliveryId, Tenant } from '@wirehook/core';
import type { Logger } from '@wirehook/platform';
import type { DeliveryJob } from '@wirehook/store';
import type { AttemptPlaces } from './attempt-places.ts';
import type { AttemptRecorder } from './attempt-recorder.ts';
import type { DeliveryLeases } from './delivery-leases.ts';
import type { DueSweep } from './due-sweep.ts';
import type { Admitted, EndpointThrottle } from './endpoint-throttle.ts';
import type { DispatcherMetrics } from './metrics.ts';
import { gateEntry, type SendGate, type Turn } from './send-gate.ts';
import type { TenantShares } from './tenant-shares.ts';
import type { WakeupLedger } from './wakeup-ledger.ts';
import type { WebhookSender } from './webhook-sender.ts';

export interface AttemptRunnerDeps {
  clock: Clock;
  logger: Logger;
  metrics: DispatcherMetrics;
  places: AttemptPlaces;
  /** Each tenant's share of the places: a claimed delivery over it goes back to the store. */
  shares: TenantShares;
  ledger: WakeupLedger;
  /** Told when a delivery is left in the store, and when a place frees up. */
  due: Pick<DueSweep, 'fellBehind' | 'placeFreed' | 'refill' | 'wakeAt'>;
  leases: DeliveryLeases;
  gate: SendGate;
  /** Holds, rate and adaptive in-flight limits per endpoint, asked once the gate let a delivery in. */
  throttle: EndpointThrottle;
  webhooks: WebhookSender;
  recorder: AttemptRecorder;
  /** The payload handed-over jobs waiting for a place may hold, in bytes; default HELD_OVER_PAYLOAD_BYTES. */
  heldOverPayloadBytes?: number;
  /**
   * Whether an answered send gives its place back before its attempt is written (bounded: #recording):
   * for a store that answers a moment's writes together (`Store.groupsWrites`), whose completions
   * freed the places in waves. Elsewhere (MongoDB) a completion holds its place until written: the
   * store's pace bounds the sends, and the driver's pool sees no more operations than places.
   */
  completionsWithoutPlace?: boolean;
  /** The payload answered sends whose completion is written without a place may hold, in bytes; default RECORDING_PAYLOAD_BYTES. */
  recordingPayloadBytes?: number;
}

/**
 * A job intake handed over this long after its lease was set is not sent but released for a
 * fresh claim: the lease (two timeouts and a margin) must outlast the whole send.
 */
const HANDOFF_MAX_AGE_MS = 5_000;

/** Whether a handed-over job is past HANDOFF_MAX_AGE_MS at `now`: given back, never sent. */
const tooOldToSend = (job: DeliveryJob, now: number) => now - job.message.createdAt > HANDOFF_MAX_AGE_MS;

/**
 * Handed-over jobs kept for a place when every place is taken hold this much payload at most
 * (counted once per message, whose jobs share it, at 2 bytes a UTF-16 code unit), and no more
 * jobs than there are places: the places bound what sends hold in memory, this what waits.
 */
const HELD_OVER_PAYLOAD_BYTES = 32 * 2 ** 20;

/**
 * A held-over job waits this long at most, then goes back to the store: the next freed places
 * go to held-over jobs before the sweep's due deliveries (retries, other endpoints' backlogs),
 * so a burst of creates may put those behind it for this long, and no longer.
 */
const HELD_OVER_MAX_WAIT_MS = 1_000;

/**
 * What answered sends writing their completion without a place may hold of payloads (2 bytes a
 * character, a job each), as held-over jobs may: the places bound the payloads in memory
 * (DISPATCH_CONCURRENCY's 512 sends of 1 MB: half the chart's 1 GiB), and this the rest.
 */
const RECORDING_PAYLOAD_BYTES = 32 * 2 ** 20;

/**
 * The path of one attempt, whatever woke it: a place taken (AttemptPlaces), the delivery
 * claimed (unless intake claimed it), let in by the gate or left waiting there, sent, its
 * outcome recorded; then its slot's turn handed on and its place given back. Each step is
 * its unit's; this holds the order between them and what a step that comes to nothing
 * leaves behind (a delivery due again in the store, a turn passed on, a place freed).
 */
export class AttemptRunner {
  readonly #deps: AttemptRunnerDeps;
  readonly #inFlight = new Set<Promise<void>>();
  /**
   * Answered sends whose completion is being written without a place: at most as many as there
   * are places (beyond, a send keeps its place until its completion is written, so the store's
   * pace bounds the sends). A place held through the completion, the store's group commit
   * answering a moment's completions together, freed the places in waves: the next were claimed
   * and sent in step, a fan-out's drain in convoys (docs/benchmarks.md, sixtieth session).
   */
  #recording = 0;
  /** Their payloads' bytes (RECORDING_PAYLOAD_BYTES). */
  #recordingBytes = 0;
  /**
   * The deliveries this process is sending. A lease is judged by the wall clock: one that jumps
   * past a lease's end mid-send would let this process claim, and send, the same delivery again.
   */
  readonly #sendingIds = new Set<DeliveryId>();
  /**
   * Jobs intake claimed for this dispatcher when every place was taken (creates written at
   * once each see the same free places): each starts in the next place freed, in order, in its
   * own trace. Kept rather than released: a release and a fresh claim would be two more writes
   * per delivery (a fan-out's burst is mostly these). Not prevented by room() reserving its
   * places instead: a create's deliveries are known only once the store has written them, so
   * each would have to reserve a whole fan-out's worth (20) and the one-delivery sends of e2e
   * would find the places reserved and go by wake-up and claim. Bounded (places, HELD_OVER_PAYLOAD_BYTES,
   * HELD_OVER_MAX_WAIT_MS); beyond, given back to the store.
   */
  readonly #heldOver: { job: DeliveryJob; trace: Context; heldAt: number }[] = [];
  /** The held-over jobs of each message (one payload for them all), and those payloads' bytes. */
  readonly #heldMessages = new Map<string, number>();
  #heldOverBytes = 0;
  /** Releases of handed-over jobs not started (settled() waits for them too). */
  readonly #releasing = new Set<Promise<void>>();
  #stopped = false;

  constructor(deps: AttemptRunnerDeps) {
    this.#deps = deps;
  }

  /** Admits nothing more (wake-ups and waiting deliveries stay due in the store). */
  stopAdmitting(): void {
    this.#stopped = true;
    this.#deps.throttle.stop(); // those waiting for a place in their endpoint's flight go back
    const now = this.#deps.clock.now();
    for (const held of this.#heldOver.splice(0)) this.#giveBack(held.job, now);
    this.#heldMessages.clear();
    this.#heldOverBytes = 0;
  }

  /** Resolves once the sends in flight now have ended, and the hand-offs given back are written. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#inFlight, ...this.#releasing]);
  }

  /** Handed-over jobs waiting for a place. */
  get heldOver(): number {
    return this.#heldOver.length;
  }

  /**
   * A job intake claimed for this dispatcher (embedded mode): started now when there is a
   * place, kept for the next place freed when there is none (within bounds); otherwise — or
   * once stopped, or too late for its lease — given back to the store, due now.
   */
  takeHandedOver(job: DeliveryJob, now: number): void {
    // The lease was set before the message's (durable) write: after a long stall there, too
    // little of it may be left for a whole send. Such a job goes back for a fresh claim.
    if (this.#stopped || tooOldToSend(job, now)) this.#giveBack(job, now);
    else if (!this.#deps.places.full) this.startHandedOver(job, now);
    else if (this.#heldOver.length < this.#deps.places.size && this.#hold(job)) this.#heldOver.push({ job, trace: context.active(), heldAt: now });
    else this.#giveBack(job, now);
  }

  /** Counts `job`'s payload among those held (once per message) if it fits. @returns whether it did. */
  #hold(job: DeliveryJob): boolean {
    const id = job.message.id;
    const jobs = this.#heldMessages.get(id) ?? 0;
    const bytes = jobs === 0 ? 2 * job.message.payload.length : 0;
    if (this.#heldOverBytes + bytes > (this.#deps.heldOverPayloadBytes ?? HELD_OVER_PAYLOAD_BYTES)) return false;
    this.#heldMessages.set(id, jobs + 1);
    this.#heldOverBytes += bytes;
    return true;
  }

  /** `job` is no longer held: its message's payload no longer counted once its last job goes. */
  #unhold(job: DeliveryJob): void {
    const id = job.message.id;
    const jobs = (this.#heldMessages.get(id) ?? 1) - 1;
    if (jobs > 0) this.#heldMessages.set(id, jobs);
    else {
      this.#heldMessages.delete(id);
      this.#heldOverBytes -= 2 * job.message.payload.length;
    }
  }

  /**
   * Due again at once, for the sweeper (the store is the truth: its lease would run out anyway) —
   * behind once its release is written: told before, a sweep reading meanwhile finds it still
   * leased, is not cut off and ends `behind`, and the delivery waits for the tick.
   */
  #giveBack(job: DeliveryJob, now: number): void {
    void this.#release(job, now).then(() => this.#deps.due.fellBehind());
  }

  /**
   * Due again at once, its tenant over its share: not `fellBehind` (every freed place would
   * sweep for what the sweep leaves alone), the tenant's sends ending ask for it (TenantShares).
   * (A hand-off held over for a place meets its tenant's share when it starts, like any other.)
   */
  async #giveBackOverShare(job: DeliveryJob, now: number): Promise<void> {
    const { ledger, metrics, shares, due } = this.#deps;
    ledger.forget(job.delivery.id);
    metrics.overTenantShare.inc();
    await this.#release(job, now);
    // If its tenant's sends ended down to half while the release was written, the sweep they asked
    // for read the store before it: sweep now. Else the tenant is still marked, and the next such end asks.
    if (shares.taken(job.tenant) <= shares.perTenant / 2) due.refill();
    else shares.mayHaveMore(job.tenant);
  }

  /** Writes the release of `job`'s lease, due at `now`; settled() waits for it. */
  #release(job: DeliveryJob, now: number): Promise<void> {
    const release = this.#deps.leases.release(job, now);
    this.#releasing.add(release);
    void release.finally(() => this.#releasing.delete(release));
    return release;
  }

  /**
   * A wake-up of delivery `id`, of `tenant` when it names one: while that tenant holds its whole
   * share here, left in the store without a claim (a claim and its release would be two writes
   * for nothing); its sends ending down to half its share sweep for it. Likewise while the tenant
   * is held for a store overload (TenantHolds): the sweep at the hold's end brings it. Else as `admit`.
   */
  async admitWakeUp(id: DeliveryId, tenant: Tenant | undefined): Promise<void> {
    if (this.#stopped) return;
    if (tenant !== undefined && !this.#deps.shares.hasRoom(tenant)) {
      this.#deps.ledger.forget(id);
      if (!this.#deps.shares.held(tenant)) this.#deps.metrics.overTenantShare.inc();
      return;
    }
    await this.admit(id, undefined, tenant);
  }

  /**
   * Claims `id` and starts its send when there is room; else leaves it due in the store
   * for the sweeper. Resolves once the claim is decided (the send goes on). `fromWaitingOf`:
   * it was waiting for a turn of that endpoint, which it is taking over; `tenant`: its wake-up's,
   * held if the store refuses the claim for overload.
   */
  async admit(id: DeliveryId, fromWaitingOf?: string, tenant?: Tenant): Promise<void> {
    if (this.#stopped) return;
    // Its tenant held for a store overload (a lane's next; a parked delivery's turn, when it became held after the turn
    // was given): not claimed, left due in the store for the sweep at the hold's end; a turn it was to take goes on.
    if (tenant !== undefined && this.#deps.shares.held(tenant)) {
      this.#deps.ledger.forget(id);
      if (fromWaitingOf !== undefined) this.#giveTurn(this.#deps.gate.passOn(fromWaitingOf));
      return;
    }
    // Room for it? Else it stays due in the store, for the sweeper.
    if (this.#deps.places.full) {
      this.#deps.ledger.forget(id);
      this.#deps.due.fellBehind();
      return;
    }
    await this.#occupy(() => this.#attempt(id, fromWaitingOf, tenant));
  }

  /** Starts a job intake claimed for this dispatcher (the caller checked there is a place). */
  startHandedOver(job: DeliveryJob, now: number): void {
    void this.#occupy(() => this.#start(job, now, true)).catch((err) => this.#deps.logger.error({ err, deliveryId: job.delivery.id }, 'attempt failed'));
  }

  /** Runs `attempt` in a place; the place is given back when no send started (a send gives it back as it ends). */
  async #occupy(attempt: () => Promise<boolean>): Promise<void> {
    this.#deps.places.take();
    let sending = false;
    try {
      sending = await attempt();
    } finally {
      if (!sending) this.#finished();
    }
  }

  /** One admitted attempt is over: room for the next — a job held over first, in order. */
  #finished(): void {
    this.#deps.places.give();
    for (let held = this.#heldOver.shift(); held !== undefined; held = this.#heldOver.shift()) {
      const { job, trace, heldAt } = held;
      const now = this.#deps.clock.now();
      this.#unhold(job);
      if (now - heldAt > HELD_OVER_MAX_WAIT_MS || tooOldToSend(job, now)) {
        this.#giveBack(job, now);
        continue;
      }
      // In its own trace, not that of the send whose end freed the place.
      context.with(trace, () => this.startHandedOver(job, now));
      return;
    }
    this.#deps.due.placeFreed();
  }

  /** @returns whether a send started (it ends with #finished). */
  async #attempt(id: DeliveryId, fromWaitingOf: string | undefined, tenant?: Tenant): Promise<boolean> {
    const now = this.#deps.clock.now();
    if (this.#sendingIds.has(id)) {
      // Being sent here (a wake-up after the clock jumped past its lease): still on its way, not forgotten.
      if (fromWaitingOf !== undefined) this.#giveTurn(this.#deps.gate.passOn(fromWaitingOf));
      return false;
    }
    const job = await this.#deps.leases.claim(id, now, tenant);
    if (!job) {
      this.#deps.ledger.forget(id); // done, not due, paused, or claimed elsewhere
      // It was to use a freed turn of its endpoint: pass the turn on.
      if (fromWaitingOf !== undefined) this.#giveTurn(this.#deps.gate.passOn(fromWaitingOf));
      return false;
    }
    return this.#start(job, now, false, fromWaitingOf);
  }

  /**
   * Sends a claimed delivery when its tenant's share has room and the gate lets it in;
   * otherwise it goes back to the store, or waits in the gate (a job handed over by intake
   * never overtakes deliveries waiting for its endpoint). `fromWaitingOf`: it took over a
   * freed turn of that endpoint. @returns whether a send started.
   */
  async #start(job: DeliveryJob, now: number, handedOver = false, fromWaitingOf?: string): Promise<boolean> {
    const { shares, gate, due } = this.#deps;
    if (!shares.tryTake(job.tenant)) {
      // Before the gate: parked, it would wait for its endpoint's turn, not for its tenant's sends.
      // Written before the turn is passed on, as a release of the gate's (the sweep then finds it).
      await this.#giveBackOverShare(job, now);
      // The turn it took over goes to the next waiting delivery, as for a claim that found nothing.
      if (fromWaitingOf !== undefined) this.#giveTurn(gate.passOn(fromWaitingOf));
      return false;
    }
    let sending = false;
    try {
      sending = await this.#enter(job, now, handedOver);
    } finally {
      // A send gives its tenant's place back as it ends (#enter).
      if (!sending && shares.give(job.tenant)) due.refill();
    }
    return sending;
  }

  /** The gate, the throttle and the send of a claimed delivery holding a place of its tenant's share. @returns whether a send started. */
  async #enter(job: DeliveryJob, now: number, handedOver: boolean): Promise<boolean> {
    const { gate, ledger, leases, metrics, logger, throttle, due, shares } = this.#deps;
    const id = job.delivery.id;
    const entry = gateEntry(job);
    if (!gate.tryEnter(entry, handedOver)) {
      // Its endpoint is busy. Park it (before the release is written: a turn freed meanwhile
      // must find it waiting), unless the endpoint's parking is full: then it waits in the
      // store, and the sweep that follows the endpoint's queue draining brings it back.
      const parked = gate.wait(entry, context.active());
      if (parked) {
        ledger.note(id, now);
        metrics.waiting.set(gate.waiting);
      } else {
        ledger.forget(id);
      }
      await leases.release(job, now);
      // Left in the store: if its endpoint's queue drained to half while the release was written,
      // the sweep that drain asked for read the store before it (SendGate.leftInStore).
      if (!parked && gate.leftInStore(entry.endpointId)) due.refill();
      return false;
    }
    const admitted = await throttle.admit(job, now);
    if (!admitted.ok) {
      // Held or throttled: back to the store until it may go (no place, slot or parking kept
      // meanwhile, so it blocks no other endpoint), and the slot's turn to whoever waits.
      ledger.forget(id);
      await leases.release(job, admitted.until);
      due.wakeAt(admitted.until);
      this.#giveTurn(gate.ended(entry));
      return false;
    }
    ledger.sending(id);
    this.#sendingIds.add(id);
    // Its place, its tenant's place and its endpoint's turn, given back once: at the answer (its
    // completion then written without them) or, past the bound on completions, once written.
    let given = false;
    let recording = false;
    const giveBack = () => {
      if (given) return;
      given = true;
      // The tenant's place first, then the dispatcher's: the delivery taking the endpoint's
      // turn then finds both free (with every place taken it would be dropped, left to a sweep).
      if (shares.give(job.tenant)) due.refill();
      this.#finished();
      this.#giveTurn(gate.ended(entry));
    };
    const bytes = 2 * job.message.payload.length;
    const answered = () => {
      if (this.#deps.completionsWithoutPlace !== true) return;
      const budget = this.#deps.recordingPayloadBytes ?? RECORDING_PAYLOAD_BYTES;
      if (this.#recording >= this.#deps.places.size || this.#recordingBytes + bytes > budget) return;
      this.#recording++;
      this.#recordingBytes += bytes;
      recording = true;
      this.#countSending();
      giveBack();
    };
    const sending = this.#send(job, admitted, answered)
      .catch((err) => logger.error({ err, deliveryId: id }, 'send failed unexpectedly'))
      .finally(() => {
        this.#sendingIds.delete(id);
        ledger.sent(id);
        this.#inFlight.delete(sending);
        if (recording) {
          this.#recording--;
          this.#recordingBytes -= bytes;
        }
        this.#countSending();
        giveBack();
      });
    this.#inFlight.add(sending);
    this.#countSending();
    return true;
  }

  /** The gauges: sends not yet answered and answered ones still holding their place; completions being written without one. */
  #countSending(): void {
    this.#deps.metrics.inFlight.set(this.#inFlight.size - this.#recording);
    this.#deps.metrics.completing.set(this.#recording);
  }

  /**
   * Sends a claimed delivery and records its attempt (unless the send was put off); it leaves the
   * endpoint's flight as it is answered, and `answered` is called before its attempt is written
   * (after a Retry-After's hold: a send given the endpoint's turn then sees the hold).
   */
  async #send(job: DeliveryJob, admitted: Admitted, answered: () => void): Promise<void> {
    // At the time the throttle let it through (what its rate limit counted), not a few ms later.
    const at = admitted.at;
    let result: Awaited<ReturnType<WebhookSender['send']>> = null;
    try {
      result = await this.#deps.webhooks.send(job, at);
    } finally {
      await this.#deps.throttle.ended(admitted, job.endpoint, result);
    }
    if (result !== null) await this.#deps.recorder.record(job, result, at, answered);
  }

  /** A turn of an endpoint is free (see SendGate): its next waiting delivery is claimed again to take it. */
  #giveTurn(turn: Turn): void {
    const { gate, shares, ledger, due } = this.#deps;
    const { endpointId } = turn;
    let { next, refill } = turn;
    // Deliveries of this endpoint were left in the store while its queue was full: fetch them.
    if (refill) due.refill();
    // Its tenant held for a store overload: each waiting delivery forgotten (due in the store: a parked one holds no
    // lease) for the sweep at the hold's end, and the turn passed on — in a loop, not by recursion: a parking holds up
    // to four times the endpoint's slots.
    while (next?.tenant !== undefined && shares.held(next.tenant)) {
      ledger.forget(next.id);
      gate.turnSettled(endpointId);
      ({ next, refill } = gate.passOn(endpointId));
      if (refill) due.refill();
    }
    this.#deps.metrics.waiting.set(gate.waiting);
    if (next === undefined) return;
    // Called as another delivery's send ends: run in the waiting delivery's own trace, not that one.
    const taker = next;
    void context
      .with(taker.trace, () => this.admit(taker.id, endpointId, taker.tenant))
      .catch((err) => this.#deps.logger.error({ err, deliveryId: taker.id }, 'attempt failed'))
      .finally(() => gate.turnSettled(endpointId));
  }
}
