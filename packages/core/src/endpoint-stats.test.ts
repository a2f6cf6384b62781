import { describe, expect, it } from 'vitest';
import {
  attemptStatsKind,
  CANCELLED_ATTEMPT_ERROR,
  rollupIncrement,
  rollupStart,
  statsWindowSpan,
  STATS_ERROR_KINDS,
  type EndpointRollup,
  type StatsErrorKind,
} from './endpoint-stats.ts';
import { summarizeEndpointStats } from './endpoint-stats-summary.ts';
import { histogramQuantile, LATENCY_BOUNDS_MS, latencyBucket } from './latency-histogram.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
// 2026-11-30T23:58:00Z: a month's, a day's, a six-hour bucket's and an hour's last minutes.
const NOW = Date.UTC(2026, 10, 30, 23, 58);

describe('attemptStatsKind', () => {
  it.each([
    [200, null, 'succeeded'],
    [204, null, 'succeeded'],
    [299, null, 'succeeded'],
    [404, 'http_status: 404', 'http_4xx'],
    [499, 'http_status: 499', 'http_4xx'],
    [500, 'http_status: 500', 'http_5xx'],
    [503, 'http_status: 503', 'http_5xx'],
    [304, 'http_status: 304', 'http_4xx'],
    [101, 'http_status: 101', 'http_4xx'],
    [301, 'redirect: 301 to https://elsewhere.example/ not followed', 'refused'],
    [null, 'blocked: 10.0.0.1 is a private address; webhooks are sent only to public addresses', 'refused'],
    [null, 'timeout: no response within 15 s', 'timeout'],
    [null, 'connection: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:8443)', 'connection'],
    [null, 'connection: ECONNRESET', 'connection'],
    [null, 'tls: CERT_HAS_EXPIRED', 'tls'],
    [null, 'dns: ENOTFOUND (getaddrinfo ENOTFOUND nowhere.example)', 'dns'],
    [null, 'relay: no source address configured (RELAY_SOURCE_IPS is empty)', 'relay'],
    [null, 'auth: token endpoint answered 401: {"error":"invalid_client"}', 'auth'],
    [null, 'transformation: InternalError: interrupted (the CPU budget of 50 ms ran out) (line 2, column 9)', 'transformation'],
    [null, 'internal: the send failed inside Wirehook', 'connection'],
    [null, 'something odd', 'connection'],
    [200, 'relay: the relay answered but the call failed', 'relay'],
  ] as const)('status %s, error %s → %s', (responseStatus, error, kind) => {
    expect(attemptStatsKind({ responseStatus, error })).toBe(kind);
  });

  it('has ten error classes: the contract’s eight, auth (no OAuth token) and transformation (the endpoint’s code failed)', () => {
    expect(STATS_ERROR_KINDS).toEqual(['http_4xx', 'http_5xx', 'timeout', 'connection', 'tls', 'dns', 'refused', 'relay', 'auth', 'transformation']);
  });

  it('a cancel by the endpoint’s transformation adds nothing to the rollups (nothing was sent); a failed one is its class', () => {
    expect(rollupIncrement({ responseStatus: null, error: CANCELLED_ATTEMPT_ERROR, durationMs: 2 })).toBeNull();
    expect(rollupIncrement({ responseStatus: null, error: 'transformation: handler is not a function (line 1, column 1)', durationMs: 2 })).toMatchObject({
      kind: 'transformation',
    });
  });
});

describe('latency histogram', () => {
  it('has log-spaced bounds from 1 ms to 65,536 ms, each about √2 above the one before from 32 ms on', () => {
    expect(LATENCY_BOUNDS_MS[0]).toBe(1);
    expect(LATENCY_BOUNDS_MS.at(-1)).toBe(65_536);
    for (let i = LATENCY_BOUNDS_MS.indexOf(45); i < LATENCY_BOUNDS_MS.length; i++) {
      const ratio = (LATENCY_BOUNDS_MS[i] as number) / (LATENCY_BOUNDS_MS[i - 1] as number);
      expect(ratio).toBeGreaterThan(1.4);
      expect(ratio).toBeLessThan(1.43);
    }
  });

  it('puts a duration in the first bucket whose bound is at least it, the longest in the last', () => {
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(1)).toBe(0);
    expect(latencyBucket(1.5)).toBe(1);
    expect(latencyBucket(1024)).toBe(LATENCY_BOUNDS_MS.indexOf(1024));
    expect(latencyBucket(1025)).toBe(LATENCY_BOUNDS_MS.indexOf(1448));
    expect(latencyBucket(15_000)).toBe(LATENCY_BOUNDS_MS.indexOf(16_384));
    expect(latencyBucket(10_000_000)).toBe(LATENCY_BOUNDS_MS.length - 1);
  });

  it('reads a quantile by nearest rank as the bound of its bucket; null when empty', () => {
    const counts = LATENCY_BOUNDS_MS.map(() => 0);
    expect(histogramQuantile(counts, 0.5)).toBeNull();
    counts[latencyBucket(40)] = 90; // 45 ms bucket
    counts[latencyBucket(3_000)] = 9; // 4,096 ms bucket
    counts[latencyBucket(15_000)] = 1; // 16,384 ms bucket
    expect(histogramQuantile(counts, 0.5)).toBe(45);
    expect(histogramQuantile(counts, 0.9)).toBe(45); // the 90th of 100 is still in the first
    expect(histogramQuantile(counts, 0.91)).toBe(4_096);
    expect(histogramQuantile(counts, 0.99)).toBe(4_096);
    expect(histogramQuantile(counts, 1)).toBe(16_384);
  });
});

describe('statsWindowSpan', () => {
  it('ends each window at the end of the bucket holding now', () => {
    expect(statsWindowSpan('1h', NOW)).toEqual({ from: Date.UTC(2026, 11, 1) - HOUR, to: Date.UTC(2026, 11, 1) });
    expect(statsWindowSpan('24h', NOW)).toEqual({ from: Date.UTC(2026, 11, 1) - DAY, to: Date.UTC(2026, 11, 1) });
    expect(statsWindowSpan('7d', NOW)).toEqual({ from: Date.UTC(2026, 11, 1) - 7 * DAY, to: Date.UTC(2026, 11, 1) });
  });

  it('moves on at a bucket edge: the first millisecond of a bucket is in it, the last of the one before is not', () => {
    const edge = Date.UTC(2026, 11, 1, 6);
    expect(statsWindowSpan('7d', edge - 1).to).toBe(edge);
    expect(statsWindowSpan('7d', edge).to).toBe(edge + 6 * HOUR);
    expect(statsWindowSpan('1h', edge - 1).to).toBe(edge);
    expect(statsWindowSpan('1h', edge).to).toBe(edge + 5 * MIN);
  });
});

function rollup(at: number, attempts: number, succeeded: number, errors: Partial<Record<StatsErrorKind, number>>, durationMs: number): EndpointRollup {
  const latency = LATENCY_BOUNDS_MS.map(() => 0);
  latency[latencyBucket(durationMs)] = attempts;
  const all = Object.fromEntries(STATS_ERROR_KINDS.map((k) => [k, errors[k] ?? 0])) as Record<StatsErrorKind, number>;
  return { at, attempts, succeeded, errors: all, latency };
}

describe('summarizeEndpointStats', () => {
  it('sums the rows inside the window into its buckets; the series adds up to the totals', () => {
    const { from, to } = statsWindowSpan('7d', NOW);
    const rows = [
      rollup(from - HOUR, 100, 0, { timeout: 100 }, 15_000), // before the window
      rollup(from, 10, 10, {}, 40),
      rollup(from + 5 * HOUR, 20, 10, { http_5xx: 10 }, 40), // the first six-hour bucket too
      rollup(rollupStart(NOW, HOUR), 30, 20, { http_4xx: 5, refused: 5 }, 3_000), // the last bucket
      rollup(to, 7, 7, {}, 40), // after it
    ];
    const stats = summarizeEndpointStats({ endpointId: 'ep_1', window: '7d', now: NOW, rollups: rows, pending: { count: 3, oldestAt: NOW - DAY } });
    expect(stats).toMatchObject({
      endpointId: 'ep_1',
      window: '7d',
      from,
      to,
      attempts: 60,
      succeeded: 40,
      failed: 20,
      successRate: 0.6667,
      errors: { http_4xx: 5, http_5xx: 10, timeout: 0, connection: 0, tls: 0, dns: 0, refused: 5, relay: 0 },
      latencyMs: { p50: 45, p95: 4_096, p99: 4_096 },
      pending: 3,
      oldestPendingAt: NOW - DAY,
    });
    expect(stats.series).toHaveLength(28);
    expect(stats.series[0]).toEqual({ at: from, attempts: 30, succeeded: 20, failed: 10, p95Ms: 45 });
    expect(stats.series[27]).toEqual({ at: to - 6 * HOUR, attempts: 30, succeeded: 20, failed: 10, p95Ms: 4_096 });
    expect(stats.series.slice(1, 27).every((p) => p.attempts === 0 && p.p95Ms === null)).toBe(true);
    expect(stats.series.reduce((n, p) => n + p.attempts, 0)).toBe(stats.attempts);
    expect(stats.series.reduce((n, p) => n + p.failed, 0)).toBe(stats.failed);
    expect(stats.series.map((p) => p.at)).toEqual(Array.from({ length: 28 }, (_, i) => from + i * 6 * HOUR));
  });

  it('has null rates and latencies without attempts, and 12 or 24 empty buckets', () => {
    const hour = summarizeEndpointStats({ endpointId: 'ep_1', window: '1h', now: NOW, rollups: [], pending: { count: 0, oldestAt: null } });
    expect(hour).toMatchObject({ attempts: 0, failed: 0, successRate: null, latencyMs: { p50: null, p95: null, p99: null }, oldestPendingAt: null });
    expect(hour.series).toHaveLength(12);
    expect(summarizeEndpointStats({ endpointId: 'ep_1', window: '24h', now: NOW, rollups: [], pending: { count: 0, oldestAt: null } }).series).toHaveLength(24);
  });
});
