/**
 * `work`, or a rejection with `late()` when `ms` pass first; the timer is cleared either way,
 * and `work` keeps running (a caller that must stop it aborts it itself). `ms` Infinity: no
 * timer; otherwise below 2^31 (setTimeout's longest).
 */
export async function within<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  if (ms === Number.POSITIVE_INFINITY) return work;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(late()), Math.max(0, ms));
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
