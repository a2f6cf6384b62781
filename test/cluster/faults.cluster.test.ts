// Faults in cluster mode, each under a burst of 2,000 messages to a receiver that counts
// webhook-ids: nothing may be lost; how many arrived more than once is printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, parseMetrics, readMetric, type ApiClient } from '@wirehook/testkit';
import { startClusterHarness, type ClusterHarness } from '../support/cluster-harness.ts';
import { promtoolProblems } from '../support/promtool.ts';
import { startReceiver, type NamedReceiver } from '../support/receivers.ts';

const BURST = 2_000;
let h: ClusterHarness;
let rx: NamedReceiver;
let api: ApiClient;
let burstNo = 0;

beforeAll(async () => {
  // A 10 s attempt limit, not the harness's 1 s: on a loaded machine (the whole suite) sends to
  // the local receiver took over a second, each such timeout cut the endpoint's adaptive
  // in-flight limit (to 1–3), and a delivery timed out twice waited for its 5-minute retry —
  // so "128 of 2,000 arrived within 90 s" in CI, though nothing was lost. Shown on purpose with
  // FAULTS_DELIVERY_TIMEOUT_MS=100 and CPU hogs: 76 cuts, the limit at 3, 5 of 2,000 waiting
  // for their retry. These tests are about losing nothing, not about a receiver's speed.
  h = await startClusterHarness({ dispatchers: 2, deliveryTimeoutMs: Number(process.env['FAULTS_DELIVERY_TIMEOUT_MS'] ?? 10_000) });
  rx = await startReceiver();
  const t = await h.tenant();
  api = t.api;
  const consumerId = (await api.post('/v1/consumers', { external_id: 'burst' })).body.id;
  expect((await api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url() })).status).toBe(201);
}, 180_000); // a loaded CI machine starts ten processes slowly

afterAll(async () => {
  await h?.close();
  await rx?.receiver.close();
});

/** Sends BURST messages (32 at a time); calls `midway` once half are accepted. */
async function burst(midway: () => Promise<void>): Promise<string[]> {
  const tag = `b${++burstNo}`;
  const ids: string[] = [];
  let next = 0;
  let fired = false;
  const worker = async () => {
    while (next < BURST) {
      const i = next++;
      if (!fired && i >= BURST / 2) {
        fired = true;
        await midway();
      }
      const res = await api.post('/v1/messages', { consumer: 'burst', event_type: 'burst.test', payload: { tag, i } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      ids.push(res.body.id);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return ids;
}

async function expectAllArrive(name: string, ids: string[]): Promise<void> {
  const want = new Set(ids);
  try {
    await eventually(
      () => {
        const got = new Set(rx.receiver.requests.map((r) => r.headers['webhook-id']).filter((id) => want.has(id!)));
        expect(got.size).toBe(want.size);
      },
      90_000,
      250,
    );
  } catch (err) {
    console.error(`${name}: not all arrived; the dispatchers' view:\n${await dispatcherView()}`);
    throw err;
  }
  const received = rx.receiver.requests.filter((r) => want.has(r.headers['webhook-id']!)).length;
  console.log(`${name}: ${ids.length} messages, ${received} requests, ${received - ids.length} arrived more than once`);
  expect(received).toBeGreaterThanOrEqual(ids.length);
}

/** What each dispatcher says of its queue and JetStream's consumer (printed when deliveries do not arrive). */
async function dispatcherView(): Promise<string> {
  const shown = /^wirehook_(deliveries_due|dispatch_(waiting|in_flight|store_errors|throttled|concurrency_changes)|jetstream_consumer|delivery_attempts_total)/;
  const views = await Promise.all(
    h.cluster.specs
      .filter((s) => s.service === 'dispatcher')
      .map(async (s) => {
        const text = await fetch(`http://127.0.0.1:${s.metricsPort}/metrics`).then(
          (r) => r.text(),
          (e: Error) => e.message,
        );
        return `${s.name}:\n${text
          .split('\n')
          .filter((l) => shown.test(l))
          .join('\n')}`;
      }),
  );
  const endpoint = (await api.get('/v1/endpoints')).body.items[0];
  const throughput = endpoint ? (await api.get(`/v1/endpoints/${endpoint.id}`)).body.throughput : null;
  return `${views.join('\n')}\nthe endpoint's throughput: ${JSON.stringify(throughput)}`;
}

const attemptsOn = (port: number) => readMetric(`http://127.0.0.1:${port}`, 'wirehook_delivery_attempts_total', { outcome: 'success' });

describe('cluster faults', () => {
  it('two dispatcher replicas share one burst; none is lost', async () => {
    const ids = await burst(async () => {});
    await expectAllArrive('two replicas', ids);
    const dispatchers = h.cluster.specs.filter((s) => s.service === 'dispatcher');
    expect(dispatchers).toHaveLength(2);
    // Received is not yet counted: an attempt is counted after the receiver's answer.
    for (const d of dispatchers) await eventually(async () => expect(await attemptsOn(d.metricsPort)).toBeGreaterThan(0));
  }, 180_000);

  it('every series carries its service; the API series are only where the API is served (gateway, portal); promtool check metrics passes', async () => {
    for (const spec of h.cluster.specs) {
      const samples = parseMetrics(await (await fetch(`http://127.0.0.1:${spec.metricsPort}/metrics`)).text());
      expect(samples.length, spec.name).toBeGreaterThan(0);
      expect(new Set(samples.map((s) => s.labels['service'])), spec.name).toEqual(new Set([spec.service]));
      const text = await (await fetch(`http://127.0.0.1:${spec.metricsPort}/metrics`)).text();
      expect(promtoolProblems(text), spec.name).toBe('');
      const api = samples.some((s) => s.name.startsWith('wirehook_http_') || s.name.startsWith('wirehook_rate_limit_'));
      expect(api, spec.name).toBe(spec.service === 'gateway' || spec.service === 'portal');
    }
    // gRPC calls, counted on both sides under go-grpc-prometheus' names (the burst before sent thousands).
    const port = (service: string) => h.cluster.specs.find((s) => s.service === service)!.metricsPort;
    // The gateway's sends go in SendBatch calls (the sends of one turn of its event loop each).
    const send = { grpc_service: 'wirehook.intake.v1.MessageIntake', grpc_method: 'SendBatch', grpc_code: 'OK' };
    const batches = await readMetric(`http://127.0.0.1:${port('gateway')}`, 'grpc_client_handled_total', send);
    expect(batches).toBeGreaterThanOrEqual(BURST / 64);
    expect(await readMetric(`http://127.0.0.1:${port('message-intake')}`, 'grpc_server_handled_total', send)).toBeGreaterThanOrEqual(batches);
    expect(await readMetric(`http://127.0.0.1:${port('message-intake')}`, 'grpc_server_handling_seconds_count', send)).toBeGreaterThanOrEqual(batches);
    // JetStream's view of the dispatch consumer: present, and drained after the burst.
    const dispatcher = (await (await fetch(`http://127.0.0.1:${port('dispatcher')}/metrics`)).text()).split('\n');
    expect(dispatcher.find((l) => l.startsWith('wirehook_jetstream_consumer_pending{'))).toMatch(/ 0$/);
    expect(dispatcher.some((l) => l.startsWith('wirehook_jetstream_consumer_redelivered{'))).toBe(true);
  });

  it('a dispatcher killed with SIGKILL mid-burst loses nothing', async () => {
    const ids = await burst(() => h.cluster.kill('dispatcher-1', 'SIGKILL'));
    await expectAllArrive('dispatcher SIGKILL', ids);
    await h.cluster.restart('dispatcher-1');
  }, 180_000);

  it('nats-server restarted mid-burst loses nothing', { timeout: 180_000 }, async () => {
    const ids = await burst(() => h.nats.restart());
    await expectAllArrive('nats restart', ids);
  });

  it('readiness names what failed: NATS hung (dispatchers out, intake in), Redis down (gateway in, degraded), then back; recovery/alerting ready', async () => {
    const port = (name: string) => h.cluster.specs.find((s) => s.name === name)!.metricsPort;
    const ready = async (name: string) => {
      const res = await fetch(`http://127.0.0.1:${port(name)}/readyz`);
      return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, string> } };
    };
    expect(await ready('message-intake')).toEqual({ status: 200, body: { status: 'ready', checks: { store: 'ok', nats: 'ok' } } });
    expect((await ready('gateway')).status).toBe(200);
    expect(await ready('recovery')).toEqual({ status: 200, body: { status: 'ready', checks: { store: 'ok', nats: 'ok' } } });
    expect(await ready('alerting')).toEqual({ status: 200, body: { status: 'ready', checks: { secret_key: 'ok', store: 'ok' } } });

    h.nats.pause();
    try {
      // The dispatcher takes its work from NATS: out of service, and it says why (it also
      // checks its key ring against the store, secret_key).
      // eventually: a PONG nats-server wrote just before SIGSTOP can still answer the first probe.
      await eventually(async () =>
        expect(await ready('dispatcher-1')).toEqual({
          status: 503,
          body: { status: 'not ready', checks: { store: 'ok', nats: 'no answer within 1000 ms', secret_key: 'ok' } },
        }),
      );
      expect((await fetch(`http://127.0.0.1:${port('dispatcher-1')}/livez`)).status).toBe(200);
      // message-intake stores and answers sends without NATS: still ready, NATS named.
      await eventually(async () =>
        expect(await ready('message-intake')).toEqual({
          status: 200,
          body: { status: 'ready', checks: { store: 'ok', nats: 'no answer within 1000 ms' } },
        }),
      );
    } finally {
      h.nats.resume();
    }
    await eventually(async () => expect((await ready('dispatcher-1')).status).toBe(200));

    await h.redis.stop();
    try {
      const gateway = await ready('gateway');
      expect(gateway.status).toBe(200);
      expect(gateway.body.checks['store']).toBe('ok');
      expect(gateway.body.checks['redis']).toMatch(/redis|Redis|connect|ECONNREFUSED|Connection/);
    } finally {
      await h.redis.restart();
    }
    await eventually(async () => expect((await ready('gateway')).body.checks['redis']).toBe('ok'), 15_000, 200);
  });

  it('NATS hung: sends are still accepted (202 before the gateway’s deadline), and delivered once NATS answers again', async () => {
    // SIGSTOP: connections stay open and nothing answers — publishes wait for acks that never come.
    h.nats.pause();
    let ids: string[] = [];
    try {
      ids = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await api.post('/v1/messages', { consumer: 'burst', event_type: 'burst.test', payload: { hung: i } });
          // Intake waits a second for its wake-ups, then answers: a 202, not the 503 the gateway
          // gives when its 5 s gRPC deadline passes (no wall-clock budget: the status says it).
          expect(res.status, JSON.stringify(res.body)).toBe(202);
          return res.body.id as string;
        }),
      );
    } finally {
      h.nats.resume();
    }
    await expectAllArrive('nats hung', ids);
  });

  it('Redis stopped and started mid-burst: requests keep being accepted, nothing is lost', async () => {
    const ids = await burst(async () => {
      await h.redis.stop();
      setTimeout(() => void h.redis.restart(), 2_000);
    });
    await expectAllArrive('redis stop/start', ids);
    // Counting resumes once Redis is back.
    await eventually(
      async () => {
        const res = await api.get('/v1/event-types');
        expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(20_000);
      },
      20_000,
      200,
    );
  }, 180_000);
});
