// A served call's deadline, as its handler must keep it: the work ends before the caller stops
// waiting, and none is begun for a caller that has already given up.
import { UnavailableError } from '@wirehook/core';

/** How long before a call's deadline its answer leaves, at most: time for it to reach the caller. */
const ANSWER_MARGIN_MS = 250;

/** How long a call's work may run: until its deadline less a margin (a quarter of the time left, ANSWER_MARGIN_MS at most); 0 once it has passed. */
export function answerWithinMs(deadline: Date | number, now: number): number {
  const left = (deadline instanceof Date ? deadline.getTime() : deadline) - now;
  if (!Number.isFinite(left)) return 2 ** 31 - 1; // no deadline: setTimeout's longest
  return Math.max(0, Math.floor(left - Math.min(ANSWER_MARGIN_MS, left / 4)));
}

/** The answer to a call read after its deadline: nothing was done. */
export function tooLate(service: string): UnavailableError {
  return new UnavailableError(`${service} received this call after its deadline (the caller had given up); nothing was done: try again`);
}

/**
 * Throws `tooLate(service)` unless `call`'s deadline is still ahead. A call read after it (this
 * process stalled: a pause, a long GC, a frozen container) was already answered 503 "try again" by
 * its caller; done now, a send without an Idempotency-Key would be written, then written again by
 * the retry (a recovery started twice, a delivery re-sent twice).
 */
export function notYetLate(call: { getDeadline(): Date | number }, service: string): void {
  if (answerWithinMs(call.getDeadline(), Date.now()) === 0) throw tooLate(service);
}
