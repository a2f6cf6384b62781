import { latencyBucket } from './latency-histogram.ts';

// Endpoint health (GET /v1/endpoints/{id}/stats): what one attempt adds to the rollups the
// store keeps as attempts complete, and which rollups a window reads. The sums are made by
// endpoint-stats-summary.ts.

const MINUTE_MS = 60 * 1000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** The windows the stats take (`?window=`). */
export const STATS_WINDOWS = ['1h', '24h', '7d'] as const;
export type StatsWindow = (typeof STATS_WINDOWS)[number];
/** The window without `?window=`. */
export const DEFAULT_STATS_WINDOW = '24h' satisfies StatsWindow;

/**
 * The lengths (ms) of the rollup rows the store keeps per endpoint: every completed attempt
 * adds to one row of each. 5-minute rows serve the 1h window (12 rows), hourly rows the 24h
 * (24) and 7d (168) windows: no window reads more than 168 rows, whatever the traffic.
 */
export const ROLLUP_GRAINS_MS = [300_000, 3_600_000] as const;
export type RollupGrainMs = (typeof ROLLUP_GRAINS_MS)[number];

/**
 * How long a rollup row is kept after its bucket ends, by grain: the longest window that
 * reads it and a day's margin (5-minute rows: 1 hour → 1 day; hourly rows: 7 days → 8).
 * Older rows are removed by the retention job, a bounded batch at a time.
 */
export const ROLLUP_RETENTION_MS: Readonly<Record<RollupGrainMs, number>> = { 300000: DAY_MS, 3600000: 8 * DAY_MS };

/** A window's series: `buckets` buckets of `bucketMs`, summed from rollup rows of `grainMs`. */
export interface StatsWindowShape {
  bucketMs: number;
  buckets: number;
  grainMs: RollupGrainMs;
}

export const STATS_WINDOW_SHAPES: Readonly<Record<StatsWindow, StatsWindowShape>> = {
  '1h': { bucketMs: 5 * MINUTE_MS, buckets: 12, grainMs: 300_000 },
  '24h': { bucketMs: HOUR_MS, buckets: 24, grainMs: 3_600_000 },
  '7d': { bucketMs: 6 * HOUR_MS, buckets: 28, grainMs: 3_600_000 },
};

/**
 * The span a window covers at `now`: its buckets are aligned to multiples of their length
 * since the Unix epoch (UTC: 6-hour buckets start at 00, 06, 12 and 18 h), and the window
 * ends at the end of the bucket holding `now` (`to`, in the future: the last bucket is
 * still filling). `from` is `buckets` buckets before `to`.
 */
export function statsWindowSpan(window: StatsWindow, now: number): { from: number; to: number } {
  const { bucketMs, buckets } = STATS_WINDOW_SHAPES[window];
  const to = Math.floor(now / bucketMs) * bucketMs + bucketMs;
  return { from: to - buckets * bucketMs, to };
}

/** The error classes the stats count failed attempts in; every failed attempt is in exactly one. */
export const STATS_ERROR_KINDS = ['http_4xx', 'http_5xx', 'timeout', 'connection', 'tls', 'dns', 'refused', 'relay', 'auth', 'transformation'] as const;
export type StatsErrorKind = (typeof STATS_ERROR_KINDS)[number];

/**
 * How an attempt counts in the stats, from its HTTP status and its `error` (`<kind>: <detail>`,
 * packages/egress): `succeeded` for a 2xx; else its error class. An answer other than 2xx is
 * `http_5xx` from 500 up, `http_4xx` below (a rare 1xx or a 3xx without Location too);
 * `refused` is what Wirehook refused to do — send to an address that is not public
 * (`blocked`) or follow a redirect (`redirect`); `timeout`, `tls`, `dns`, `connection` and
 * `relay` are the egress's own kinds; `auth` an OAuth token that could not be had (the
 * endpoint was not sent to); `transformation` the endpoint's transformation failed (nothing
 * was sent); any other (`internal`) counts as `connection`. A cancelled attempt (see
 * isCancelledAttempt) is in no class: rollupIncrement leaves it out.
 */
export function attemptStatsKind(attempt: { responseStatus: number | null; error: string | null }): 'succeeded' | StatsErrorKind {
  const status = attempt.responseStatus;
  if (attempt.error === null && status !== null && status >= 200 && status < 300) return 'succeeded';
  const kind = attempt.error === null ? 'http_status' : attempt.error.slice(0, Math.max(0, attempt.error.indexOf(':')));
  switch (kind) {
    case 'http_status':
      return status !== null && status >= 500 ? 'http_5xx' : 'http_4xx';
    case 'blocked':
    case 'redirect':
      return 'refused';
    case 'timeout':
    case 'tls':
    case 'dns':
    case 'relay':
    case 'auth':
    case 'transformation':
    case 'connection':
      return kind;
    default:
      return 'connection';
  }
}

/** What one rollup row holds: the attempts completed in its span. */
export interface RollupCounts {
  attempts: number;
  /** 2xx answers; every other attempt failed. */
  succeeded: number;
  errors: Record<StatsErrorKind, number>;
  /** Attempts per LATENCY_BOUNDS_MS bucket, by duration. */
  latency: number[];
}

/** A rollup row of one endpoint: the attempts completed in [at, at + grain). */
export interface EndpointRollup extends RollupCounts {
  at: number;
}

/** The start of the bucket of `grainMs` holding `at`. */
export function rollupStart(at: number, grainMs: number): number {
  return Math.floor(at / grainMs) * grainMs;
}

/** What one attempt adds to the rollups: its class and its latency bucket. */
export interface RollupIncrement {
  kind: 'succeeded' | StatsErrorKind;
  latencyBucket: number;
}

/**
 * The `error` of an attempt whose endpoint's transformation returned `{cancel: true}`: nothing
 * was sent, and the delivery ended `success` (docs/semantics.md, "Transformations").
 */
export const CANCELLED_ATTEMPT_ERROR = "cancelled: the endpoint's transformation returned {cancel: true}; nothing was sent";

/** Whether an attempt was cancelled by its endpoint's transformation (nothing sent: not an attempt on the receiver). */
export function isCancelledAttempt(attempt: { error: string | null }): boolean {
  return attempt.error?.startsWith('cancelled:') === true;
}

/**
 * The increment an attempt makes (see attemptStatsKind and latencyBucket); null for a cancelled
 * one, which says nothing about the receiver (it was not sent to) and so is not counted.
 */
export function rollupIncrement(attempt: { responseStatus: number | null; error: string | null; durationMs: number }): RollupIncrement | null {
  if (isCancelledAttempt(attempt)) return null;
  return { kind: attemptStatsKind(attempt), latencyBucket: latencyBucket(attempt.durationMs) };
}
