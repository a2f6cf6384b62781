// What an SRE pages on, from embedded mode's /metrics: the queue's depth and lag, retrying
// deliveries, intake outcomes; Node's metrics under their standard names; and the whole
// output passes `promtool check metrics`.
import { parseMetrics, readMetric, eventually } from '@wirehook/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWirehook, type Harness } from '../support/harness.ts';
import { promtoolProblems } from '../support/promtool.ts';
import { type NamedReceiver, reachingReceivers, startReceiver } from '../support/receivers.ts';

let wh: Harness;
let rx: NamedReceiver;
beforeAll(async () => {
  wh = await startWirehook(await reachingReceivers());
  rx = await startReceiver();
});
afterAll(async () => {
  await wh.close();
  await rx.receiver.close();
});

it('queue depth and lag, retrying, intake outcomes; standard Node names; promtool passes', async () => {
  const metrics = wh.embedded.metricsUrl();
  const t = await wh.tenant();
  const consumerId = (await t.api.post('/v1/consumers', { external_id: 'sre' })).body.id;
  const endpoint = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), retry: { count: 7, interval: '1m' } })).body.id;
  rx.receiver.respondWith({ status: 503 });
  const send = (key?: string) => t.api.post('/v1/messages', { consumer: 'sre', event_type: 'a.b', payload: {} }, key ? { 'idempotency-key': key } : {});
  await send('k1');
  await send('k1'); // replayed
  await send();
  await eventually(async () => expect(await readMetric(metrics, 'wirehook_deliveries_retrying')).toBe(2));
  expect(await readMetric(metrics, 'wirehook_intake_messages_total', { outcome: 'accepted' })).toBe(2);
  expect(await readMetric(metrics, 'wirehook_intake_messages_total', { outcome: 'replayed' })).toBe(1);
  // Retries are a minute away: nothing due yet. Paused, a minute later: due, and late.
  expect(await readMetric(metrics, 'wirehook_deliveries_due')).toBe(0);
  await t.api.patch(`/v1/endpoints/${endpoint}`, { status: 'paused' });
  await t.api.patch(`/v1/endpoints/${endpoint}`, { status: 'active' });
  // The dispatcher would send them at once: stop it before they fall due, so they stay due
  // (stopped after the clock moved, a sweep in between could send one, and its next retry
  // would be due a minute later with an age of 0).
  await wh.embedded.dispatcher.stop();
  wh.clock.advance(3 * 60_000);
  await eventually(async () => expect(await readMetric(metrics, 'wirehook_deliveries_due')).toBe(2));
  expect(await readMetric(metrics, 'wirehook_deliveries_oldest_due_age_seconds')).toBeGreaterThanOrEqual(60);
  // What WirehookBacklogUnread reads: the last good read's time (the clock's, in seconds), and no failure.
  expect(await readMetric(metrics, 'wirehook_deliveries_backlog_read_timestamp_seconds')).toBeGreaterThanOrEqual(Math.floor(wh.clock.now() / 1000) - 1);
  expect(await readMetric(metrics, 'wirehook_deliveries_backlog_read_failures_total')).toBe(0);

  const text = await (await fetch(`${metrics}/metrics`)).text();
  const names = new Set(parseMetrics(text).map((s) => s.name));
  expect(names).toContain('process_cpu_seconds_total');
  expect(names).toContain('nodejs_eventloop_lag_seconds');
  expect([...names].some((n) => n.startsWith('wirehook_process_') || n.startsWith('wirehook_nodejs_'))).toBe(false);
  expect(promtoolProblems(text)).toBe('');
});
