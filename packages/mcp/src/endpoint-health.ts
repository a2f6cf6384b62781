// An endpoint's health in a few sentences, for explain_delivery: from its stats
// (GET /v1/endpoints/{id}/stats) and its latest attempts (GET /v1/endpoints/{id}'s `recent`).
import { attemptStatsKind, isCancelledAttempt, STATS_ERROR_KINDS, type StatsErrorKind } from '@wirehook/core';

/** The part of GET /v1/endpoints/{id}/stats read here. */
export interface EndpointStatsJson {
  window: string;
  attempts: number;
  succeeded: number;
  failed: number;
  success_rate: number | null;
  errors: Record<StatsErrorKind, number>;
  latency_ms: { p50: number | null; p95: number | null };
  pending: number;
  oldest_pending_at: number | null;
}

/** An attempt of the endpoint's `recent`, newest first. */
export interface RecentAttemptJson {
  at: number;
  response_status: number | null;
  error: string | null;
}

/** Each error class in words, plural (what failed). */
const CLASS_WORDS: Record<StatsErrorKind, string> = {
  http_4xx: '4xx answers',
  http_5xx: '5xx answers',
  timeout: 'timeouts',
  connection: 'connection failures',
  tls: 'TLS failures',
  dns: 'DNS failures',
  refused: 'sends refused by Wirehook (a private address, or a redirect)',
  relay: 'fixed-IP relay failures (on Wirehook’s side)',
  auth: 'OAuth token failures (no access token from the token endpoint)',
  transformation: 'transformation failures (the endpoint’s code threw, ran out of time or memory, or returned what cannot be sent)',
};

const hhmm = (at: number) => `${new Date(at).toISOString().slice(11, 16)} UTC`;
const day = (at: number) => new Date(at).toISOString().slice(0, 16).replace('T', ' ');

/**
 * Sentences about the endpoint as a whole, made only of counts, classes and times (nothing the
 * receiver wrote): how many of its latest attempts succeeded, since when the current run of
 * failures of one class has lasted ("timeouts since 14:02 UTC"), the window's totals with its
 * most common failure and latency, and what waits. A run that began on another UTC day than the
 * latest attempt is dated in full.
 */
export function describeEndpointHealth(stats: EndpointStatsJson, recent: readonly RecentAttemptJson[]): string[] {
  const lines: string[] = [];
  // Attempts a transformation cancelled sent nothing: they say nothing about the endpoint.
  recent = recent.filter((a) => !isCancelledAttempt(a));
  if (recent.length > 0) {
    const kinds = recent.map((a) => attemptStatsKind({ responseStatus: a.response_status, error: a.error }));
    const ok = kinds.filter((k) => k === 'succeeded').length;
    let sentence = `The endpoint: ${ok} of its last ${recent.length} attempts succeeded`;
    const latest = kinds[0]!;
    if (latest === 'succeeded') sentence += '; the latest did.';
    else {
      // The run of the latest failure's class, back to the first attempt of it.
      let run = 1;
      while (run < kinds.length && kinds[run] === latest) run++;
      const since = recent[run - 1]!.at;
      const when = day(since).slice(0, 10) === day(recent[0]!.at).slice(0, 10) ? hhmm(since) : `${day(since)} UTC`;
      sentence += `; ${CLASS_WORDS[latest]} ${run === kinds.length ? 'in all of them, since at least' : 'since'} ${when}.`;
    }
    lines.push(sentence);
  }
  if (stats.attempts > 0) {
    const rate = Math.round((stats.success_rate ?? 0) * 1000) / 10;
    const worst = STATS_ERROR_KINDS.filter((k) => stats.errors[k] > 0).sort((a, b) => stats.errors[b] - stats.errors[a])[0];
    const failures = worst === undefined ? '' : `; most failures were ${CLASS_WORDS[worst]} (${stats.errors[worst]} of ${stats.failed})`;
    const latency = stats.latency_ms.p50 === null ? '' : `, answered in ${stats.latency_ms.p50} ms at the median and ${stats.latency_ms.p95} ms at p95`;
    lines.push(`Over the last ${stats.window}: ${stats.attempts} attempts, ${rate} % succeeded${failures}${latency}.`);
  } else lines.push(`No attempt to the endpoint over the last ${stats.window}.`);
  if (stats.pending > 0 && stats.oldest_pending_at !== null) {
    lines.push(`${stats.pending} of its deliveries are waiting, the oldest since ${day(stats.oldest_pending_at)} UTC.`);
  }
  return lines;
}
