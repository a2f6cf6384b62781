import { setTimeout as sleep } from 'node:timers/promises';
import { unlessAborted, within } from '@wirehook/core';
import type { JobLeaseRepo } from '../ports/job-lease-port.ts';
import { isFailoverError } from './errors.ts';

/** Tries of one renewal whose outcome is unknown, before the upgrade gives up. */
export const RENEW_TRIES = 3;
/** The wait between them: a majority that lags catches up, or an election ends. */
const RENEW_RETRY_MS = 2_000;
/** How long takes may go on ending with an unknown outcome before the start fails (a majority that cannot confirm). */
export const UNKNOWN_TAKES_MS = 5 * 60_000;
/**
 * How long a release waits for its answer (and for a renewal's take on its way) before the lease
 * is left to run out: during an election the driver looks for a primary for up to 30 s, past a
 * stopping process's 20 s deadline, and a release is only a courtesy to the next holder.
 */
export const RELEASE_WAIT_MS = 5_000;

/** What an {@link UpgradeLease} needs. */
export interface UpgradeLeaseOptions {
  name: string;
  holder: string;
  leaseMs: number;
  log: (line: string) => void;
  now?: () => number;
  /** A monotonic clock in ms (performance.now unless given): how long takes have gone unconfirmed, whatever the wall clock does. */
  elapsed?: () => number;
  wait?: (ms: number) => Promise<void>;
  /** RELEASE_WAIT_MS unless given. */
  releaseWaitMs?: number;
}

/**
 * The layout upgrade's lease, for one holder. A take or a renewal whose outcome is unknown (a
 * majority that did not confirm it in time, an election, the server's time limit, POINT_OP_MS,
 * run out: isFailoverError) may stand on the primary or be rolled back: it is neither a failed
 * start nor a lease held. The same holder's next take tells: a write that stood is renewed by it, one rolled back is taken again
 * or found another's. So `take` answers false and the caller waits and asks again — for up to
 * UNKNOWN_TAKES_MS, then the start fails with the cause — and `renew` asks again itself, up to
 * RENEW_TRIES. `runIfTaken` gives the lease up when the upgrade ends or fails, so the others
 * need not wait for its expiry before one of them starts over.
 */
export class UpgradeLease {
  readonly #jobs: JobLeaseRepo;
  readonly #o: UpgradeLeaseOptions;
  /** When the takes began to end with an unknown outcome, by the monotonic clock (undefined: the last one answered). */
  #unknownSince: number | undefined;
  /** Given up (release), and not taken since: a renewal still asking again must not take it back. */
  #released = false;
  /** A take or a renewal on its way to the server: the release waits for it, or that take would stand after it. */
  #taking: Promise<boolean> | undefined;

  constructor(jobs: JobLeaseRepo, options: UpgradeLeaseOptions) {
    this.#jobs = jobs;
    this.#o = options;
  }

  /**
   * Runs `work` under the lease when this holder takes it, then gives the lease up, whether
   * `work` succeeded or threw (its error is thrown after). `signal` (a stop) ends the wait for the
   * take — during an election the driver looks for a primary for up to 30 s, past a stop's
   * deadline — and gives up what that take may have won. @returns whether it ran.
   * @throws `signal`'s reason when it was aborted before the lease was taken.
   */
  async runIfTaken(work: (renew: () => Promise<void>) => Promise<void>, signal?: AbortSignal): Promise<boolean> {
    // Asked already: no take sent, none to wait for.
    signal?.throwIfAborted();
    let taken: boolean;
    try {
      taken = await unlessAborted(this.take(), signal);
    } catch (err) {
      // The take may yet stand: released (after its answer, RELEASE_WAIT_MS at most), not left to hold the others off.
      if (signal?.aborted) await this.release();
      throw err;
    }
    if (!taken) return false;
    try {
      await work(() => this.renew());
    } finally {
      await this.release();
    }
    return true;
  }

  /**
   * Whether this holder holds the lease now (false, too, when the outcome is unknown).
   * @throws the cause when outcomes have been unknown for UNKNOWN_TAKES_MS, or any other error.
   */
  async take(): Promise<boolean> {
    const now = this.#now();
    const at = this.#o.elapsed?.() ?? performance.now();
    try {
      this.#taking = this.#takeAt(now);
      const held = await this.#taking;
      this.#unknownSince = undefined;
      if (held) this.#released = false;
      return held;
    } catch (err) {
      // A failover's, or the server's time limit run out under load (isFailoverError): the take may or may not stand.
      if (!isFailoverError(err)) throw err;
      this.#unknownSince ??= at;
      if (at - this.#unknownSince >= UNKNOWN_TAKES_MS) {
        // One of those takes may have stood: given up, so that it does not hold the others back.
        await this.release();
        throw new Error(`MongoDB layout upgrade: its lease has not been confirmed for ${UNKNOWN_TAKES_MS / 60_000} minutes (${(err as Error).message})`, {
          cause: err,
        });
      }
      this.#o.log(`MongoDB layout upgrade: its lease was not confirmed (${(err as Error).message}); asking again`);
      return false;
    }
  }

  /** Renews the lease. @throws Error when another holder has it, or RENEW_TRIES renewals in a row had an unknown outcome. */
  async renew(): Promise<void> {
    for (let tries = 1; ; tries++) {
      // A renewal begun before the lease was given up (the index builds' timer) ends here.
      if (this.#released) throw new Error('the layout upgrade has given its lease up');
      let held: boolean;
      try {
        this.#taking = this.#takeAt(this.#now());
        held = await this.#taking;
      } catch (err) {
        if (!isFailoverError(err) || tries >= RENEW_TRIES) throw err;
        this.#o.log(`MongoDB layout upgrade: a renewal of its lease was not confirmed (${(err as Error).message}); try ${tries + 1} of ${RENEW_TRIES}`);
        await (this.#o.wait ?? sleep)(RENEW_RETRY_MS);
        continue;
      }
      if (!held) throw new Error('the layout upgrade lost its lease to another process');
      return;
    }
  }

  /**
   * Ends the lease if this holder still has it, waiting RELEASE_WAIT_MS at most; a failure or no
   * answer in that time is logged, not thrown (the lease then runs out).
   */
  async release(): Promise<void> {
    this.#released = true;
    const waitMs = this.#o.releaseWaitMs ?? RELEASE_WAIT_MS;
    const giveUp = async () => {
      // A take or a renewal sent before this (a stop during the take, the index builds' timer)
      // would otherwise take the lease back after the release below, and hold the others off until it ran out.
      await this.#taking?.catch(() => false);
      // Given up still, whatever that take's answer said.
      this.#released = true;
      await this.#jobs.release(this.#o.name, this.#o.holder);
    };
    try {
      await within(giveUp(), waitMs, () => new Error(`no answer in ${waitMs / 1000} s`));
    } catch (err) {
      this.#o.log(`MongoDB layout upgrade: its lease could not be given up (${(err as Error).message}); it runs out in ${this.#o.leaseMs / 1000} s`);
    }
  }

  #now(): number {
    return (this.#o.now ?? Date.now)();
  }

  async #takeAt(now: number): Promise<boolean> {
    return (await this.#jobs.take(this.#o.name, this.#o.holder, now, now + this.#o.leaseMs)) !== null;
  }
}
