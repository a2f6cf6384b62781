import { setTimeout as sleep } from 'node:timers/promises';
import type { JobLeaseRepo } from '../ports/job-lease-port.ts';
import { isWriteConcernError } from './errors.ts';

/** Tries of one renewal that a majority did not confirm, before the upgrade gives up. */
export const RENEW_TRIES = 3;
/** The wait between them: a majority that lags catches up, or an election ends. */
const RENEW_RETRY_MS = 2_000;

/** What an {@link UpgradeLease} needs. */
export interface UpgradeLeaseOptions {
  name: string;
  holder: string;
  leaseMs: number;
  log: (line: string) => void;
  now?: () => number;
  wait?: (ms: number) => Promise<void>;
}

/**
 * The layout upgrade's lease, for one holder. A take or a renewal that a majority did not
 * confirm in time (a write-concern error) may stand on the primary or be rolled back: it is
 * neither a failed start nor a lease held. The same holder's next take tells: a write that
 * stood is renewed by it, one rolled back is taken again or found another's. So `take` answers
 * false and the caller waits and asks again; `renew` asks again itself, up to RENEW_TRIES.
 * `release` ends the lease when the upgrade ends or fails, so the others need not wait for
 * its expiry (LEASE_MS) before one of them starts over.
 */
export class UpgradeLease {
  readonly #jobs: JobLeaseRepo;
  readonly #o: UpgradeLeaseOptions;

  constructor(jobs: JobLeaseRepo, options: UpgradeLeaseOptions) {
    this.#jobs = jobs;
    this.#o = options;
  }

  /** Whether this holder holds the lease now (false, too, when a majority did not confirm it). */
  async take(): Promise<boolean> {
    try {
      return await this.#takeOnce();
    } catch (err) {
      if (!isWriteConcernError(err)) throw err;
      this.#o.log(`MongoDB layout upgrade: its lease was not confirmed by a majority in time (${(err as Error).message}); asking again`);
      return false;
    }
  }

  /** Renews the lease. @throws Error when another holder has it, or a majority did not confirm RENEW_TRIES renewals. */
  async renew(): Promise<void> {
    for (let tries = 1; ; tries++) {
      let held: boolean;
      try {
        held = await this.#takeOnce();
      } catch (err) {
        if (!isWriteConcernError(err) || tries >= RENEW_TRIES) throw err;
        this.#o.log(`MongoDB layout upgrade: a renewal of its lease was not confirmed by a majority in time; try ${tries + 1} of ${RENEW_TRIES}`);
        await (this.#o.wait ?? sleep)(RENEW_RETRY_MS);
        continue;
      }
      if (!held) throw new Error('the layout upgrade lost its lease to another process');
      return;
    }
  }

  /** Ends the lease if this holder still has it; a failure is logged, not thrown (the lease then runs out). */
  async release(): Promise<void> {
    try {
      await this.#jobs.release(this.#o.name, this.#o.holder);
    } catch (err) {
      this.#o.log(`MongoDB layout upgrade: its lease could not be given up (${(err as Error).message}); it runs out in ${this.#o.leaseMs / 1000} s`);
    }
  }

  #takeOnce(): Promise<boolean> {
    const now = (this.#o.now ?? Date.now)();
    return this.#jobs.take(this.#o.name, this.#o.holder, now, now + this.#o.leaseMs);
  }
}
