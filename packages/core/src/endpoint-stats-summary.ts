import { STATS_ERROR_KINDS, STATS_WINDOW_SHAPES, statsWindowSpan, type EndpointRollup, type StatsErrorKind, type StatsWindow } from './endpoint-stats.ts';
import { addHistogram, emptyHistogram, histogramQuantile } from './latency-histogram.ts';

/** One bucket of a window's series. */
export interface StatsSeriesPoint {
  /** The bucket's start (Unix ms). */
  at: number;
  attempts: number;
  succeeded: number;
  failed: number;
  /** The bucket's 95th percentile duration (histogram bound), null without attempts. */
  p95Ms: number | null;
}

/** An endpoint's health over a window (GET /v1/endpoints/{id}/stats), before it is JSON. */
export interface EndpointStats {
  endpointId: string;
  window: StatsWindow;
  from: number;
  to: number;
  attempts: number;
  succeeded: number;
  failed: number;
  /** succeeded / attempts, 0 … 1 (four decimals); null without attempts. */
  successRate: number | null;
  latencyMs: { p50: number | null; p95: number | null; p99: number | null };
  errors: Record<StatsErrorKind, number>;
  /** Open deliveries now (pending or retrying, held ones included). */
  pending: number;
  /** When the oldest open delivery was created; null when none is open. */
  oldestPendingAt: number | null;
  series: StatsSeriesPoint[];
}

/**
 * The stats of a window at `now` from the endpoint's rollup rows of the window's grain
 * (rows outside the window are ignored) and its open deliveries. The series' counts add up
 * to the totals; the percentiles come from the summed histograms (histogramQuantile).
 */
export function summarizeEndpointStats(input: {
  endpointId: string;
  window: StatsWindow;
  now: number;
  rollups: readonly EndpointRollup[];
  pending: { count: number; oldestAt: number | null };
}): EndpointStats {
  const { bucketMs, buckets } = STATS_WINDOW_SHAPES[input.window];
  const { from, to } = statsWindowSpan(input.window, input.now);
  const series = Array.from({ length: buckets }, (_, i) => ({ at: from + i * bucketMs, attempts: 0, succeeded: 0, latency: emptyHistogram() }));
  const errors = Object.fromEntries(STATS_ERROR_KINDS.map((k) => [k, 0])) as Record<StatsErrorKind, number>;
  const latency = emptyHistogram();
  for (const row of input.rollups) {
    if (row.at < from || row.at >= to) continue;
    const point = series[Math.floor((row.at - from) / bucketMs)]!;
    point.attempts += row.attempts;
    point.succeeded += row.succeeded;
    addHistogram(point.latency, row.latency);
    addHistogram(latency, row.latency);
    for (const kind of STATS_ERROR_KINDS) errors[kind] += row.errors[kind];
  }
  const attempts = series.reduce((n, p) => n + p.attempts, 0);
  const succeeded = series.reduce((n, p) => n + p.succeeded, 0);
  return {
    endpointId: input.endpointId,
    window: input.window,
    from,
    to,
    attempts,
    succeeded,
    failed: attempts - succeeded,
    successRate: attempts === 0 ? null : Math.round((succeeded / attempts) * 10_000) / 10_000,
    latencyMs: { p50: histogramQuantile(latency, 0.5), p95: histogramQuantile(latency, 0.95), p99: histogramQuantile(latency, 0.99) },
    errors,
    pending: input.pending.count,
    oldestPendingAt: input.pending.oldestAt,
    series: series.map((p) => ({
      at: p.at,
      attempts: p.attempts,
      succeeded: p.succeeded,
      failed: p.attempts - p.succeeded,
      p95Ms: histogramQuantile(p.latency, 0.95),
    })),
  };
}
