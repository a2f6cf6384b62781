import type { AlertTargetId, Clock } from '@wirehook/core';
import type { Logger } from '@wirehook/platform';
import type { ClaimedNotice, Store } from '@wirehook/store';
import { randomUUID } from 'node:crypto';
import { Counter, type Registry } from 'prom-client';
import type { NoticeResult, NoticeSenderPort } from './notice-sender.ts';

/** Tries of one notice, and the waits between them. */
export const NOTICE_RETRY_DELAYS_MS = [10_000, 60_000, 5 * 60_000, 30 * 60_000] as const;
/** How long a claimed notice is ours: well beyond a send's bound, so a second replica never takes one being sent. */
export const NOTICE_LEASE_MS = 60_000;
/** The bound on one send to one target (webhook, chat or e-mail). */
export const DEFAULT_SEND_TIMEOUT_MS = 10_000;
/** Sends in flight at once (per process); the rest wait in the store for the next tick. */
export const MAX_IN_FLIGHT = 100;
/**
 * Sends of one organization in flight at once (per process): an organization whose targets
 * hang holds at most this many of MAX_IN_FLIGHT, so the others' notices always find room.
 */
export const MAX_IN_FLIGHT_PER_ORG = 10;
/**
 * Places kept for organizations with nothing in flight: once only these are left, an
 * organization already sending takes none of them, so ten organizations whose targets hang
 * (10 × MAX_IN_FLIGHT_PER_ORG = MAX_IN_FLIGHT) cannot hold every place from an eleventh.
 */
export const PLACES_FOR_NEWCOMERS = 10;
/** The notices' target for the owner's e-mail (not a stored target): the worker queues to it, the outbox sends to owner_email. */
export const OWNER = 'owner' as AlertTargetId;
/** A try the store could not record is asked again this often (a quarter of the send's bound at most), this many times, inside the lease. */
const RECORD_RETRY_MS = 1_000;
const RECORD_TRIES = 5;

/**
 * Sends queued notices: claims due ones under a claim id (a lease), round-robin by
 * organization and by target within one, at most MAX_IN_FLIGHT_PER_ORG of an organization in
 * flight (a notice fanned out to many targets, and its retries, take that organization's turns
 * only); starts each send on its own — a slow or dead target holds only its own notices, never
 * the tick or other targets — cancels it at its bound and waits for it to end, and only then
 * records the try (retried later when it failed): a retry never overlaps a send still going.
 * A send that throws (a secret the ring cannot open, a bug) is a failed try like any other, so
 * it is recorded and eventually given up, not re-claimed forever.
 */
export class NoticeOutbox {
  readonly #o: { store: Store; clock: Clock; logger: Logger; sender: NoticeSenderPort; sendTimeoutMs: number };
  readonly #notices: Counter<'type' | 'outcome'>;
  readonly #inFlight = new Set<Promise<void>>();
  /** Sends in flight per organization (absent: none). */
  readonly #orgInFlight = new Map<string, number>();

  constructor(options: {
    store: Store;
    clock: Clock;
    logger: Logger;
    sender: NoticeSenderPort;
    registry?: Registry | undefined;
    sendTimeoutMs?: number | undefined;
  }) {
    this.#o = { ...options, sendTimeoutMs: options.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS };
    this.#notices = new Counter({
      name: 'wirehook_alert_notices_total',
      help: 'Tries of notices to targets (failure, usage, pool change, test), by type and outcome (sent, failed: a try that did not reach the target)',
      labelNames: ['type', 'outcome'],
      registers: options.registry ? [options.registry] : [],
    });
  }

  /**
   * Claims what is due and starts sending it; does not wait for the sends.
   * @returns whether it had room for more than was due (the outbox keeps up).
   */
  async sendDue(): Promise<boolean> {
    const room = MAX_IN_FLIGHT - this.#inFlight.size;
    if (room <= 0) return false;
    const now = this.#o.clock.now();
    const claim = async (limit: number, perOrg: number) =>
      limit <= 0
        ? []
        : this.#o.store.alerts.claimNotices(now, now + NOTICE_LEASE_MS, randomUUID(), limit, { perOrg, inFlight: Object.fromEntries(this.#orgInFlight) });
    // The places beyond the newcomers', shared as MAX_IN_FLIGHT_PER_ORG allows; then the
    // newcomers' own, one each to organizations with nothing in flight.
    const shared = await claim(room - PLACES_FOR_NEWCOMERS, MAX_IN_FLIGHT_PER_ORG);
    this.#start(shared, now);
    const kept = await claim(Math.min(room - shared.length, PLACES_FOR_NEWCOMERS), 1);
    this.#start(kept, now);
    // Keeping up: the shared places were not all needed (the newcomers' are kept either way).
    return shared.length < room - PLACES_FOR_NEWCOMERS;
  }

  /** Starts each claimed notice's send on its own, counted against its organization. */
  #start(due: readonly ClaimedNotice[], now: number): void {
    for (const notice of due) {
      const org = notice.orgId;
      this.#orgInFlight.set(org, (this.#orgInFlight.get(org) ?? 0) + 1);
      const sending = this.#sendOne(notice, now + NOTICE_LEASE_MS).catch((err: unknown) =>
        // Recording failed (the store is down): the lease runs out and the notice is tried again.
        this.#o.logger.warn({ err, noticeId: notice.id }, 'alerting: a notice try could not be recorded'),
      );
      this.#inFlight.add(sending);
      void sending.finally(() => {
        this.#inFlight.delete(sending);
        const left = (this.#orgInFlight.get(org) ?? 1) - 1;
        if (left > 0) this.#orgInFlight.set(org, left);
        else this.#orgInFlight.delete(org);
      });
    }
  }

  /** Resolves when every send started so far is recorded. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  async #sendOne(notice: ClaimedNotice, leaseUntil: number): Promise<void> {
    const { store, clock } = this.#o;
    const at = clock.now();
    // Sent only with time to finish inside the lease: past it, another replica may be sending it too.
    if (at + this.#o.sendTimeoutMs > leaseUntil) return;
    let result: NoticeResult;
    let final = false;
    if (notice.targetId === OWNER) {
      const owner = (await store.orgs.get(notice.orgId))?.ownerEmail;
      if (owner) result = await this.#bounded((signal) => this.#o.sender.sendOwnerEmail(owner, notice, signal));
      else [result, final] = [{ ok: false, status: null, error: 'no owner_email', durationMs: 0 }, true];
    } else {
      const target = await store.alerts.target(notice.orgId, notice.targetId);
      if (target) result = await this.#bounded((signal) => this.#o.sender.send(target, notice, signal));
      else [result, final] = [{ ok: false, status: null, error: 'target deleted', durationMs: 0 }, true];
    }
    if (!final) this.#notices.inc({ type: notice.type, outcome: result.ok ? 'sent' : 'failed' });
    // A test notice is tried once: its answer shows that try, and a sender testing a target that
    // hangs must not fill the outbox with retries that other organizations' notices wait behind.
    const delay = notice.type === 'alert.test' ? undefined : NOTICE_RETRY_DELAYS_MS[notice.attempts];
    const next = result.ok || final || delay === undefined ? null : clock.now() + delay;
    const attempt = { at, responseStatus: result.status, error: result.error, durationMs: result.durationMs };
    // Recorded while the lease holds, asked again if the store failed (a failover): unrecorded, the
    // notice is claimed again when its lease ends and sent a second time. Asking again is safe:
    // only the claim that holds the notice moves it on, and a try is kept once.
    for (let tries = 1; ; tries++) {
      try {
        await store.alerts.recordNoticeAttempt(notice.id, notice.claim, attempt, result.ok, next);
        return;
      } catch (err) {
        const wait = Math.min(RECORD_RETRY_MS, this.#o.sendTimeoutMs / 4);
        if (tries >= RECORD_TRIES || clock.now() + wait >= leaseUntil) throw err;
        await new Promise((resolve) => setTimeout(resolve, wait).unref());
      }
    }
  }

  /**
   * One send, cancelled at the bound (its signal aborts), never throwing. Resolves once the send
   * itself has ended — not merely when the bound passed — so the try is recorded, and its retry
   * scheduled, only when nothing of it is still going. A sender that ignores the signal is
   * waited for one more bound, then recorded as a try that did not stop (the slot is freed).
   */
  async #bounded(send: (signal: AbortSignal) => Promise<NoticeResult>): Promise<NoticeResult> {
    const started = performance.now();
    const ms = this.#o.sendTimeoutMs;
    const abort = new AbortController();
    const timedOut = `timeout: no answer within ${ms / 1000} s`;
    const sending = send(abort.signal).catch(
      (err: unknown): NoticeResult => ({
        ok: false,
        status: null,
        error: abort.signal.aborted ? timedOut : `send failed: ${(err as Error).message}`,
        durationMs: Math.round(performance.now() - started),
      }),
    );
    let timer: NodeJS.Timeout | undefined;
    const after = (wait: number, then: () => void) =>
      new Promise<null>((resolve) => {
        timer = setTimeout(() => {
          then();
          resolve(null);
        }, wait);
      });
    try {
      const result = (await Promise.race([sending, after(ms, () => abort.abort(new Error(timedOut)))])) ?? (await Promise.race([sending, after(ms, () => {})]));
      if (result === null) return { ok: false, status: null, error: `${timedOut} (the send did not stop when cancelled)`, durationMs: 2 * ms };
      if (abort.signal.aborted && !result.ok) return { ...result, error: timedOut };
      return result;
    } finally {
      clearTimeout(timer);
    }
  }
}
