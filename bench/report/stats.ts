// Small statistics helpers: percentiles of latency samples and medians of runs.

/** The `p`-th percentile (0–100, nearest rank) of `samples`; null when there are none. Sorts a copy. */
export function percentile(samples: ArrayLike<number>, p: number): number | null {
  if (samples.length === 0) return null;
  const sorted = Float64Array.from(samples).sort();
  return percentileOfSorted(sorted, p);
}

/** The `p`-th percentile (nearest rank) of already sorted, non-empty `sorted`. */
export function percentileOfSorted(sorted: ArrayLike<number>, p: number): number {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** The median of `values` (mean of the middle two for an even count); null when empty. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A distribution-free interval for a median: the `lowRank`-th and `highRank`-th (1-based) of the sorted values. */
export interface MedianInterval {
  low: number;
  high: number;
  lowRank: number;
  highRank: number;
  /** The chance that the interval holds the true median, from the binomial law (≥ the confidence asked). */
  coverage: number;
}

/**
 * The interval of order statistics that holds the median of what `values` sample with at least
 * `confidence`, for independent values (the sign test's interval: no assumption on their
 * distribution). The ranks are the widest k-th smallest and k-th largest with
 * 2 · P(Binomial(n, ½) < k) ≤ 1 − confidence; with 20 values and 95 %, the 6th and the 15th.
 * Null when there are too few values for it (fewer than 6 at 95 %).
 * @throws RangeError for a value that is not a finite number (it has no rank).
 */
export function medianInterval(values: readonly number[], confidence = 0.95): MedianInterval | null {
  if (values.some((v) => !Number.isFinite(v))) throw new RangeError(`medianInterval takes finite numbers, got ${values.find((v) => !Number.isFinite(v))}`);
  const n = values.length;
  // In logs: ½ⁿ itself is 0 in a double past n = 1,074. ln P(X = k) and ln P(X < k), X ~ Binomial(n, ½).
  const logMiss = Math.log((1 - confidence) / 2);
  let logTerm = -n * Math.LN2;
  let logBelow = Number.NEGATIVE_INFINITY;
  let k = 0;
  while (k < n) {
    const withTerm = logSum(logBelow, logTerm);
    if (withTerm > logMiss) break;
    logBelow = withTerm;
    logTerm += Math.log((n - k) / (k + 1));
    k++;
  }
  if (k === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return { low: sorted[k - 1]!, high: sorted[n - k]!, lowRank: k, highRank: n - k + 1, coverage: 1 - 2 * Math.exp(logBelow) };
}

/** ln(eᵃ + eᵇ), for a = −∞ too. */
function logSum(a: number, b: number): number {
  const high = Math.max(a, b);
  return high === Number.NEGATIVE_INFINITY ? high : high + Math.log1p(Math.exp(Math.min(a, b) - high));
}

/** Rounds to `digits` decimals. */
export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** A growable list of numbers, cheaper than a JS array for 100,000s of samples. */
export class Samples {
  #data = new Float64Array(1024);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  push(value: number): void {
    if (this.#length === this.#data.length) {
      const bigger = new Float64Array(this.#data.length * 2);
      bigger.set(this.#data);
      this.#data = bigger;
    }
    this.#data[this.#length++] = value;
  }

  /** p50, p99 and max; null when empty. */
  summary(): { p50: number; p99: number; max: number } | null {
    if (this.#length === 0) return null;
    const sorted = this.#data.slice(0, this.#length).sort();
    return { p50: percentileOfSorted(sorted, 50), p99: percentileOfSorted(sorted, 99), max: sorted[sorted.length - 1]! };
  }

  clear(): void {
    this.#length = 0;
  }
}
