/** Most of the sorted `times` within any window of `ms` (sliding): how many sends a rate limit let through at once. */
export function maxInWindow(times: readonly number[], ms: number): number {
  let most = 0;
  let from = 0;
  for (let to = 0; to < times.length; to++) {
    while (times[to]! - times[from]! >= ms) from++;
    most = Math.max(most, to - from + 1);
  }
  return most;
}
