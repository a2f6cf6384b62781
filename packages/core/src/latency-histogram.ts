// A fixed latency histogram: the endpoint-stats rollups keep one per bucket of time, and the
// percentiles of GET /v1/endpoints/{id}/stats are read from it, never from the attempts.

/**
 * Upper bounds (ms, inclusive) of the histogram's buckets: log-spaced, each about √2 (41 %)
 * above the one before (below 32 ms whole milliseconds, so the steps are uneven there), from
 * 1 ms to 65,536 ms. A
 * duration goes to the first bucket whose bound is at least it; anything longer than the
 * last bound goes to the last bucket. Fixed: rollups written by one build are read by the
 * next, so change it only with a new rollup table.
 */
export const LATENCY_BOUNDS_MS: readonly number[] = [
  1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 91, 128, 181, 256, 362, 512, 724, 1_024, 1_448, 2_048, 2_896, 4_096, 5_793, 8_192, 11_585, 16_384, 23_170, 32_768,
  46_341, 65_536,
];

/** The histogram bucket a duration of `ms` counts in (0 … LATENCY_BOUNDS_MS.length − 1). */
export function latencyBucket(ms: number): number {
  let lo = 0;
  let hi = LATENCY_BOUNDS_MS.length - 1;
  // The first bound ≥ ms (the last bucket when none is).
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((LATENCY_BOUNDS_MS[mid] as number) >= ms) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** An empty histogram: one count per bucket. */
export function emptyHistogram(): number[] {
  return LATENCY_BOUNDS_MS.map(() => 0);
}

/** Adds `from`'s counts into `into` (same length). */
export function addHistogram(into: number[], from: readonly number[]): void {
  for (let i = 0; i < into.length; i++) into[i] = (into[i] as number) + (from[i] ?? 0);
}

/**
 * The `q` quantile (0 < q ≤ 1) of a histogram, by nearest rank: the bound of the bucket
 * holding the ⌈q·n⌉-th smallest duration — never below the true value, at most one bucket
 * (about 41 %) above it. null when the histogram is empty.
 */
export function histogramQuantile(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i] as number;
    if (seen >= rank) return LATENCY_BOUNDS_MS[i] as number;
  }
  return LATENCY_BOUNDS_MS.at(-1) as number;
}
