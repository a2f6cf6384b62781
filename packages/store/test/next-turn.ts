// For the stand-in tests, whose collections answer within the microtasks: what a promise has come to
// by the next turn of the event loop, or 'waiting' — a call still going then waits for something held.

/** `promise`'s value if it settles before the next turn (setImmediate), else 'waiting'. */
export function byNextTurn<T>(promise: Promise<T>): Promise<T | 'waiting'> {
  return Promise.race([promise, new Promise<'waiting'>((resolve) => setImmediate(() => resolve('waiting')))]);
}
