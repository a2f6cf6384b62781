// The factory the relay's process calls, in the test process: the readiness check on both
// sides of each rule (a pool or none; in bind mode this host's addresses or not; in nat mode
// any), the line that says how it runs, and its gRPC server on loopback sending from the pool
// with DELIVERY_ALLOW_HOSTS and DELIVERY_RESOLVE honoured.
import { standardWebhookHeaders } from '@wirehook/core';
import { createLogger, silentLogger } from '@wirehook/platform';
import { relayCallMs } from '@wirehook/core/without-schemas';
import { RelayGrpcClient } from '@wirehook/rpc';
import { eventually, jsonLines, testCa } from '@wirehook/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type NamedReceiver } from '../../../test/support/receivers.ts';
import { createRelay, type RelaySettings } from './create-relay.ts';
import { relaySourceIpsVar, type RelayEgressMode } from './relay-sources.ts';

const TOKEN = 'create-relay-test-token-0123456789abcdef';
let named: NamedReceiver;
beforeAll(async () => {
  named = await startReceiver();
});
afterAll(() => named.receiver.close());

const settings = (sources: string, mode: RelayEgressMode = 'bind', over: Partial<RelaySettings> = {}): RelaySettings => ({
  GRPC_HOST: '127.0.0.1',
  GRPC_PORT: 0,
  INTERNAL_AUTH_TOKEN: TOKEN,
  RELAY_EGRESS_MODE: mode,
  RELAY_SOURCE_IPS: relaySourceIpsVar.parse(sources),
  DELIVERY_ALLOW_HOSTS: named.host,
  DELIVERY_RESOLVE: `${named.host}:${named.ip}`,
  DELIVERY_TIMEOUT_MS: 2_000,
  ENDPOINT_SLOTS: 2,
  ...over,
});

describe('the source_ips readiness check', () => {
  it.each<[string, string, RelayEgressMode, string | null]>([
    ['no pool, bind', '', 'bind', 'RELAY_SOURCE_IPS is empty: no address to send fixed_ip webhooks from'],
    ['no pool, nat', '', 'nat', 'RELAY_SOURCE_IPS is empty: no address to send fixed_ip webhooks from'],
    [
      'bind, an address this host lacks',
      '127.0.0.2,203.0.113.7',
      'bind',
      'RELAY_SOURCE_IPS has addresses this host does not have: 203.0.113.7 (sends from them fail)',
    ],
    ['bind, this host’s address', '127.0.0.2', 'bind', null],
    ['nat, the NAT gateway’s address', '198.51.100.20', 'nat', null],
  ])('%s: %s', async (_case, sources, mode, refusal) => {
    const { readiness, relay } = createRelay(settings(sources, mode), { logger: silentLogger() });
    try {
      expect(readiness).toMatchObject({ name: 'source_ips', gates: true });
      if (refusal === null) await expect(readiness.probe()).resolves.toBeUndefined();
      else await expect(readiness.probe()).rejects.toThrow(refusal);
    } finally {
      await relay.close();
    }
  });
});

it('says in one line which mode and pool it runs with', async () => {
  const { destination, lines } = jsonLines();
  const logger = createLogger({ name: 'egress-relay', destination, format: 'json' });
  await createRelay(settings('198.51.100.20,2001:db8::7', 'nat'), { logger }).relay.close();
  await createRelay(settings(''), { logger }).relay.close();
  expect(lines.map((l) => [l['mode'], l['sourceIps'], l['msg']])).toEqual([
    [
      'nat',
      ['198.51.100.20', '2001:db8::7'],
      'egress relay in nat mode (connections not bound; the NAT gateway in front sends them from its addresses): pool 198.51.100.20, 2001:db8::7',
    ],
    [
      'bind',
      [],
      'egress relay in bind mode (each connection bound to a pool address of this host): no pool (RELAY_SOURCE_IPS is empty: every fixed_ip send fails)',
    ],
  ]);
});

it('serves the dispatchers over gRPC from its components: a send goes out from the pool address; the delivery rules are the config’s', async () => {
  const built = createRelay(settings('127.0.0.2'), { logger: silentLogger(), ca: (await testCa()).caPem });
  expect(built.components.map((c) => c.name)).toEqual(['relay', 'grpc']);
  for (const c of built.components) await c.start();
  const client = new RelayGrpcClient({ address: `127.0.0.1:${built.grpc.port()}`, authToken: TOKEN, deadlineMs: 10_000 });
  try {
    const body = '{"a":1}';
    const delivery = {
      url: named.url(),
      poolKey: 'ep_create_relay',
      headers: standardWebhookHeaders([Buffer.from('create-relay-test-secret')], 'msg_01KCREATERELAY000000000000', Date.now(), body),
      body,
    };
    // DELIVERY_RESOLVE maps the receiver's name; its address itself is not in DELIVERY_ALLOW_HOSTS.
    expect(await client.send(delivery)).toMatchObject({ ok: true, status: 200, sourceIp: '127.0.0.2' });
    expect(named.receiver.requests.at(-1)).toMatchObject({ remoteAddress: '127.0.0.2', body });
    expect(await client.send({ ...delivery, url: `https://${named.ip}:8443/hook` })).toMatchObject({ ok: false, error: expect.stringMatching(/^blocked: /) });
  } finally {
    client.close();
    for (const c of [...built.components].reverse()) await c.stop();
  }
});

it('stopped (SIGTERM: a rolling update), it lets a send it holds finish, past the 5 s a gRPC server waits unless told', async () => {
  // Answered after 6 s: past startGrpcServer's default grace (5 s), within the delivery timeout (8 s). Cut
  // short, the dispatcher would record the attempt failed (`relay: …`) though the webhook went out, and send it again.
  const ANSWER_AFTER_MS = 6_000;
  const DELIVERY_TIMEOUT_MS = 8_000;
  const slow = await startReceiver();
  slow.receiver.respondWith({ status: 200, delayMs: ANSWER_AFTER_MS });
  const over = { DELIVERY_TIMEOUT_MS, DELIVERY_ALLOW_HOSTS: slow.host, DELIVERY_RESOLVE: `${slow.host}:${slow.ip}` };
  const built = createRelay(settings('127.0.0.2', 'bind', over), { logger: silentLogger(), ca: (await testCa()).caPem });
  for (const c of built.components) await c.start();
  const client = new RelayGrpcClient({ address: `127.0.0.1:${built.grpc.port()}`, authToken: TOKEN, deadlineMs: relayCallMs(DELIVERY_TIMEOUT_MS) });
  try {
    const body = '{"slow":true}';
    const headers = standardWebhookHeaders([Buffer.from('create-relay-test-secret')], 'msg_01KCREATERELAYSLOW0000000000', Date.now(), body);
    const sent = client.send({ url: slow.url(), poolKey: 'ep_create_relay_slow', headers, body });
    await eventually(() => expect(slow.receiver.requests).toHaveLength(1));
    // The stop its process makes on SIGTERM: its components in reverse, the gRPC server first.
    const stopped = (async () => {
      for (const c of [...built.components].reverse()) await c.stop();
    })();
    expect(await sent).toMatchObject({ ok: true, status: 200, error: null, sourceIp: '127.0.0.2' });
    await stopped;
  } finally {
    client.close();
    await slow.receiver.close();
  }
}, 30_000);
