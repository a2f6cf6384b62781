import type { ClaimedNotice, NoticeClaimFairness } from './ports/alert-settings-port.ts';

/** Target cursors kept at most (one per organization with notices due lately); past it they start over. */
const MAX_TARGET_CURSORS = 10_000;

/**
 * The store's two seeks of a fair claim (both adapters' claimNotices): the next organization
 * after `after` ('' : the first) with a due notice, or null; and a claim of the organization's
 * next due notice of the first target after `afterTarget` with one, or null.
 */
export interface NoticeTurnOps {
  nextOrg(after: string): string | null;
  takeOf(orgId: string, afterTarget: string): ClaimedNotice | null;
}

/** NoticeTurnOps of an asynchronous store. */
export interface AsyncNoticeTurnOps {
  nextOrg(after: string): Promise<string | null>;
  takeOf(orgId: string, afterTarget: string): Promise<ClaimedNotice | null>;
  /** Whether a seek's error is the store's (a failover), which ends the walk with what it claimed; any other is thrown. */
  interrupts(err: unknown): boolean;
}

/**
 * Whose turn it is in the notice outbox: organizations in id order from where the last claim
 * stopped (wrapping at the end), one notice each per lap; within an organization, its targets
 * in id order from the one served last. An organization at its share (`fair.perOrg` in flight)
 * is passed over. A lap that claims nothing ends the claim, and seeks are bounded by
 * SEEKS_PER_CLAIM × limit, so a claim never walks the whole backlog.
 */
export class NoticeTurns {
  #orgAfter = '';
  readonly #targetAfter = new Map<string, string>();

  /** Synchronous seeks (SQLite, inside one write transaction). */
  claim(limit: number, fair: NoticeClaimFairness | undefined, ops: NoticeTurnOps): ClaimedNotice[] {
    const lap = this.#lap(limit, fair);
    while (lap.going()) {
      const orgId = ops.nextOrg(lap.cursor);
      if (orgId === null) {
        lap.wrap();
        continue;
      }
      if (lap.visit(orgId))
        lap.took(
          orgId,
          this.#takeOf(orgId, (o, t) => ops.takeOf(o, t)),
        );
    }
    this.#orgAfter = lap.cursor;
    return lap.claimed;
  }

  /**
   * Asynchronous seeks (MongoDB): each claim a write of its own, so one that fails with the
   * store's error (`interrupts`: a majority not answering in time) ends the walk but not the
   * claims before it, which stand and are returned to be sent; it throws when nothing was
   * claimed, and for any other error (a fault is told, not passed over).
   */
  async claimAsync(limit: number, fair: NoticeClaimFairness | undefined, ops: AsyncNoticeTurnOps): Promise<ClaimedNotice[]> {
    const lap = this.#lap(limit, fair);
    try {
      while (lap.going()) {
        const orgId = await ops.nextOrg(lap.cursor);
        if (orgId === null) {
          lap.wrap();
          continue;
        }
        if (!lap.visit(orgId)) continue;
        const after = this.#targetAfter.get(orgId) ?? '';
        let notice = await ops.takeOf(orgId, after);
        if (notice === null && after !== '') notice = await ops.takeOf(orgId, '');
        lap.took(orgId, this.#served(orgId, notice));
      }
    } catch (err) {
      if (lap.claimed.length === 0 || !ops.interrupts(err)) throw err;
      process.emitWarning(`wirehook: claiming alert notices stopped after ${lap.claimed.length}: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.#orgAfter = lap.cursor;
    return lap.claimed;
  }

  /** The organization's next target's notice, from the start when none follows the cursor. */
  #takeOf(orgId: string, take: (orgId: string, after: string) => ClaimedNotice | null): ClaimedNotice | null {
    const after = this.#targetAfter.get(orgId) ?? '';
    let notice = take(orgId, after);
    if (notice === null && after !== '') notice = take(orgId, '');
    return this.#served(orgId, notice);
  }

  #served(orgId: string, notice: ClaimedNotice | null): ClaimedNotice | null {
    if (notice === null) this.#targetAfter.delete(orgId);
    else {
      if (this.#targetAfter.size >= MAX_TARGET_CURSORS) this.#targetAfter.clear();
      this.#targetAfter.set(orgId, notice.targetId);
    }
    return notice;
  }

  #lap(limit: number, fair: NoticeClaimFairness | undefined): Lap {
    return new Lap(this.#orgAfter, limit, fair);
  }
}

/** Seeks one claim may make per notice it may take (a bound, never reached in a lap that claims). */
export const SEEKS_PER_CLAIM = 4;

/** One claim's walk: where it is, what it took, and when it stops. */
class Lap {
  cursor: string;
  readonly claimed: ClaimedNotice[] = [];
  readonly #limit: number;
  readonly #fair: NoticeClaimFairness | undefined;
  readonly #taken = new Map<string, number>();
  #seeks = 0;
  #wrapped = false;
  #claimedSinceWrap = false;
  #done = false;

  constructor(start: string, limit: number, fair: NoticeClaimFairness | undefined) {
    this.cursor = start;
    this.#limit = limit;
    this.#fair = fair;
  }

  going(): boolean {
    return !this.#done && this.claimed.length < this.#limit && this.#seeks++ < SEEKS_PER_CLAIM * this.#limit + 2;
  }

  /** The walk reached the last organization: from the first again, unless a whole lap took nothing. */
  wrap(): void {
    if (this.cursor === '' || (this.#wrapped && !this.#claimedSinceWrap)) {
      this.#done = true;
      return;
    }
    this.#wrapped = true;
    this.#claimedSinceWrap = false;
    this.cursor = '';
  }

  /** Moves to `orgId`; whether it may take one of its notices (its share not reached). */
  visit(orgId: string): boolean {
    this.cursor = orgId;
    if (this.#fair === undefined) return true;
    return (this.#fair.inFlight[orgId] ?? 0) + (this.#taken.get(orgId) ?? 0) < this.#fair.perOrg;
  }

  took(orgId: string, notice: ClaimedNotice | null): void {
    if (notice === null) return;
    this.claimed.push(notice);
    this.#taken.set(orgId, (this.#taken.get(orgId) ?? 0) + 1);
    this.#claimedSinceWrap = true;
  }
}
