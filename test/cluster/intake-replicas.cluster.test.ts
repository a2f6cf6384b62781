// Two message-intake processes behind one gateway: the gateway's gRPC client spreads its
// calls over both (round_robin), as it would over the pods of a headless Service. Under
// grpc-js' default (pick_first) one replica would take every call and the other none. And a
// replica stopped as a rolling update stops a pod (SIGTERM) while sends flow: the calls it
// holds finish, the rest go to the other, and no sender is answered 503.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiClient, eventually, freePort, readMetric } from '@wirehook/testkit';
import { startClusterHarness, type ClusterHarness } from '../support/cluster-harness.ts';

let h: ClusterHarness;
let gateway: ApiClient;

beforeAll(async () => {
  h = await startClusterHarness();
  const spec = (name: string) => h.cluster.specs.find((s) => s.name === name)!;
  const [grpcPort, intakeMetrics, apiPort, gatewayMetrics] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const first = spec('message-intake');
  await h.cluster.add({
    name: 'message-intake-2',
    service: 'message-intake',
    metricsPort: intakeMetrics,
    env: { ...first.env, GRPC_PORT: String(grpcPort), METRICS_PORT: String(intakeMetrics) },
  });
  // A second gateway, told both replicas' addresses (grpc-js' ipv4: scheme: a fixed list).
  const both = `ipv4:127.0.0.1:${first.env['GRPC_PORT']},127.0.0.1:${grpcPort}`;
  await h.cluster.add({
    name: 'gateway-2',
    service: 'gateway',
    metricsPort: gatewayMetrics,
    env: { ...spec('gateway').env, PORT: String(apiPort), METRICS_PORT: String(gatewayMetrics), INTAKE_GRPC_ADDRESS: both },
  });
  gateway = new ApiClient(`http://127.0.0.1:${apiPort}`);
}, 180_000); // a loaded CI machine starts ten processes slowly
afterAll(() => h?.close());

it('both message-intake replicas take the SendBatch calls of one gateway', async () => {
  const t = await h.tenant();
  const api = gateway.as(t.key);
  /** SendBatch calls each replica answered OK, from its own /metrics (one request at a time: one send a call). */
  const sends = () =>
    Promise.all(
      ['message-intake', 'message-intake-2'].map((name) =>
        readMetric(`http://127.0.0.1:${h.cluster.specs.find((s) => s.name === name)!.metricsPort}`, 'grpc_server_handled_total', {
          grpc_method: 'SendBatch',
          grpc_code: 'OK',
        }),
      ),
    );
  const before = await sends();
  for (let i = 0; i < 40; i++) {
    expect((await api.post('/v1/messages', { consumer: 'c', event_type: 'a.b', payload: { i } })).status).toBe(202);
  }
  const served = (await sends()).map((n, i) => n - before[i]!);
  expect(served[0]! + served[1]!).toBe(40);
  // Round robin gives each about half; at least a quarter each, whatever connected first.
  expect(Math.min(...served)).toBeGreaterThanOrEqual(10);
}, 60_000);

it('a replica stopped (SIGTERM, as a rolling update does) mid-burst, then started again: every send answered 202, each message stored', async () => {
  const t = await h.tenant();
  const api = gateway.as(t.key);
  /** Sends before the stop begins, and after the replica has exited (to the one left). */
  const BEFORE = 300;
  const AFTER = 200;
  const ids: string[] = [];
  const failures: string[] = [];
  let started = 0;
  let stop: Promise<void> | undefined;
  let exited = false;
  let sentAfter = 0;
  const sender = async () => {
    while (!exited || sentAfter < AFTER) {
      // While 16 senders keep sending: the replica's own drain (its calls in flight finish, then it exits).
      if (++started === BEFORE) stop = h.cluster.kill('message-intake-2', 'SIGTERM').then(() => void (exited = true));
      const after = exited;
      const res = await api.post('/v1/messages', { consumer: 'c', event_type: 'a.b', payload: { started } });
      if (res.status === 202) ids.push(res.body.id as string);
      else failures.push(`${res.status} ${JSON.stringify(res.body)}`);
      if (after) sentAfter++;
    }
  };
  await Promise.all(Array.from({ length: 16 }, sender));
  await stop;
  expect(failures).toEqual([]);
  expect(ids.length).toBeGreaterThanOrEqual(BEFORE + AFTER);
  expect(new Set(ids).size).toBe(ids.length);
  // Each 202 is a stored message, whichever replica took it.
  for (const id of [ids[0]!, ids[BEFORE]!, ids.at(-1)!]) expect((await api.get(`/v1/messages/${id}`)).status).toBe(200);
  await h.cluster.restart('message-intake-2');
  // Back: it takes calls again (the gateway reconnects to it); its counters start from 0.
  const handled = () =>
    readMetric(`http://127.0.0.1:${h.cluster.specs.find((s) => s.name === 'message-intake-2')!.metricsPort}`, 'grpc_server_handled_total', {
      grpc_method: 'SendBatch',
      grpc_code: 'OK',
    });
  await eventually(
    async () => {
      expect((await api.post('/v1/messages', { consumer: 'c', event_type: 'a.b', payload: { again: true } })).status).toBe(202);
      expect(await handled()).toBeGreaterThan(0);
    },
    // grpc-js' reconnect backoff grows while the replica is down (1 s × 1.6 a try): room for a slow machine.
    60_000,
    200,
  );
}, 180_000);
