/**
 * `work`, or a rejection with `signal`'s reason once it aborts (at once, if it has); the
 * listener is removed either way. `work` keeps running: what it makes after the abort goes to
 * `discard` (a connection to close), and its failure then is nobody's.
 */
export function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, discard?: (made: T) => unknown): Promise<T> {
  if (signal === undefined) return work;
  const aborted = Promise.withResolvers<never>();
  const onAbort = () => {
    aborted.reject(signal.reason);
    work.then((made) => discard?.(made)).catch(() => {});
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return Promise.race([work, aborted.promise]).finally(() => signal.removeEventListener('abort', onAbort));
}
