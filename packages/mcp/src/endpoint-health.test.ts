import { describe, expect, it } from 'vitest';
import { describeEndpointHealth, type EndpointStatsJson, type RecentAttemptJson } from './endpoint-health.ts';
import { explainDelivery, UNTRUSTED_OPEN } from './explain.ts';

const T = Date.UTC(2026, 2, 1, 14, 2);
const MIN = 60_000;
const errors = { http_4xx: 0, http_5xx: 0, timeout: 0, connection: 0, tls: 0, dns: 0, refused: 0, relay: 0, auth: 0, transformation: 0 };
const stats = (over: Partial<EndpointStatsJson> = {}): EndpointStatsJson => ({
  window: '24h',
  attempts: 50,
  succeeded: 3,
  failed: 47,
  success_rate: 0.06,
  errors: { ...errors, timeout: 40, http_5xx: 7 },
  latency_ms: { p50: 16_384, p95: 16_384 },
  pending: 0,
  oldest_pending_at: null,
  ...over,
});
const ok = (at: number): RecentAttemptJson => ({ at, response_status: 200, error: null });
const timeout = (at: number): RecentAttemptJson => ({ at, response_status: null, error: 'timeout: no response within 15 s' });
const http500 = (at: number): RecentAttemptJson => ({ at, response_status: 500, error: 'http_status: 500' });

describe('describeEndpointHealth', () => {
  it('counts the latest attempts’ successes and dates the current run of one failure class', () => {
    // Newest first: five timeouts since 14:02, a 500 before them, then successes.
    const recent = [...[4, 3, 2, 1, 0].map((i) => timeout(T + i * MIN)), http500(T - MIN), ok(T - 2 * MIN), ok(T - 3 * MIN), ok(T - 4 * MIN)];
    const lines = describeEndpointHealth(stats(), recent);
    expect(lines[0]).toBe('The endpoint: 3 of its last 9 attempts succeeded; timeouts since 14:02 UTC.');
    expect(lines[1]).toBe(
      'Over the last 24h: 50 attempts, 6 % succeeded; most failures were timeouts (40 of 47), answered in 16384 ms at the median and 16384 ms at p95.',
    );
  });

  it('says the latest succeeded; a run as long as the list began at least at its oldest; a run of another day is dated in full', () => {
    expect(describeEndpointHealth(stats(), [ok(T), http500(T - MIN)])[0]).toBe('The endpoint: 1 of its last 2 attempts succeeded; the latest did.');
    expect(describeEndpointHealth(stats(), [http500(T), http500(T - MIN)])[0]).toBe(
      'The endpoint: 0 of its last 2 attempts succeeded; 5xx answers in all of them, since at least 14:01 UTC.',
    );
    expect(describeEndpointHealth(stats(), [http500(T), http500(T - 15 * 60 * MIN), ok(T - 16 * 60 * MIN)])[0]).toBe(
      'The endpoint: 1 of its last 3 attempts succeeded; 5xx answers since 2026-02-28 23:02 UTC.',
    );
  });

  it('no attempts in the window, and what waits', () => {
    const lines = describeEndpointHealth(
      stats({
        attempts: 0,
        succeeded: 0,
        failed: 0,
        success_rate: null,
        errors,
        latency_ms: { p50: null, p95: null },
        pending: 12,
        oldest_pending_at: T - 90 * MIN,
      }),
      [],
    );
    expect(lines).toEqual(['No attempt to the endpoint over the last 24h.', '12 of its deliveries are waiting, the oldest since 2026-03-01 12:32 UTC.']);
  });

  it('explain_delivery puts the endpoint’s health in its own words, before the receiver’s data', () => {
    const message = {
      id: 'msg_1',
      event_type: 'order.created',
      status: 'failed',
      deliveries: [
        {
          id: 'dlv_1',
          endpoint_id: 'ep_1',
          url: 'https://hooks.example.com/in',
          status: 'failed',
          next_attempt_at: null,
          attempts: [
            {
              at: T,
              response_status: null,
              response_head: null,
              duration_ms: 15_000,
              error: 'timeout: no response within 15 s',
              via: 'direct',
              source_ip: null,
            },
          ],
        },
      ],
    };
    const text = explainDelivery(message, undefined, describeEndpointHealth(stats(), [timeout(T), ok(T - MIN)]));
    const ours = text.slice(0, text.indexOf(UNTRUSTED_OPEN));
    expect(ours).toContain('The endpoint: 1 of its last 2 attempts succeeded; timeouts since 14:02 UTC.');
    expect(ours.indexOf('The endpoint:')).toBeGreaterThan(ours.indexOf('No attempt is left'));
  });
});
