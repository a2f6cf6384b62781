// The egress relay as operators run it: `node services/egress-relay/src/main.ts`, a real
// process. Ready only with a source address (otherwise /readyz names RELAY_SOURCE_IPS) that,
// in bind mode, this host has; a value that is not an address, or a RELAY_EGRESS_MODE other
// than bind or nat, stops the start in one line naming it; a Relay.Deliver call goes out from
// the pool address (nat: is recorded as it), and the relay's /metrics counts it by that address.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { standardWebhookHeaders } from '@wirehook/core';
import { RelayGrpcClient } from '@wirehook/rpc';
import { eventually, freePort, readMetric, spawnTestProcess } from '@wirehook/testkit';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startReceiver, type NamedReceiver } from '../../../test/support/receivers.ts';
import { OutputTail, waitLive } from '../../cluster/src/start-wait.ts';

const main = join(import.meta.dirname, 'main.ts');
const TOKEN = 'relay-process-test-token-0123456789abcdef';
// The receiver is on https://rN.receiver.wirehook.test:8443 (the relay keeps the endpoint URL
// rules: https, 443 or 8443), that name resolved by DELIVERY_RESOLVE.
let named: NamedReceiver;
let child: ChildProcess | undefined;

beforeAll(async () => {
  named = await startReceiver();
});
afterAll(() => named.receiver.close());
/** A delivery as the dispatcher sends it (the relay refuses anything else). */
const delivery = (poolKey: string, body = '{}') => ({
  url: named.url(),
  poolKey,
  headers: standardWebhookHeaders([Buffer.from('relay-process-test-secret')], 'msg_01KRELAYPROCESS00000000000', Date.now(), body),
  body,
});
afterEach(async () => {
  if (child?.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((resolve) => child!.once('exit', resolve));
  }
  child = undefined;
});

/** The relay's environment: free ports, the test CA, and no RELAY_SOURCE_IPS unless `extra` has one. */
async function relayEnv(extra: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  const { RELAY_SOURCE_IPS: _inherited, ...inherited } = process.env;
  return {
    ...inherited,
    GRPC_PORT: String(await freePort()),
    METRICS_PORT: String(await freePort()),
    INTERNAL_AUTH_TOKEN: TOKEN,
    DELIVERY_ALLOW_HOSTS: named.host,
    DELIVERY_RESOLVE: `${named.host}:${named.ip}`,
    NODE_EXTRA_CA_CERTS: named.receiver.caFile,
    ...extra,
  };
}

/**
 * Starts the relay and waits until it reports live as itself (waitLive, as the cluster launcher
 * does: its /livez naming this pid). A start that lost a drawn port before binding it
 * (EADDRINUSE) is tried again on fresh ports, within one deadline under the test's own; any
 * other exit fails the test with the relay's whole stderr (a bare "fetch failed" tells nothing).
 * @returns its environment and what it has printed on stdout so far.
 */
async function startRelay(extra: NodeJS.ProcessEnv): Promise<{ env: NodeJS.ProcessEnv; stdout: () => string }> {
  const deadline = Date.now() + 25_000;
  for (let attempt = 1; ; attempt++) {
    const env = await relayEnv(extra);
    let [stdout, stderr] = ['', ''];
    const started = spawnTestProcess(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    // Listened for from the spawn on: 'close' (the process gone, its output read) may come before the wait ends.
    const closed = once(started, 'close');
    const output = new OutputTail();
    for (const [stream, add] of [
      [started.stdout!, (line: string) => (stdout += `${line}\n`)],
      [started.stderr!, (line: string) => (stderr += `${line}\n`)],
    ] as const) {
      createInterface({ input: stream }).on('line', (line) => {
        add(line);
        output.push(line);
      });
    }
    const spec = { name: 'egress-relay', service: 'egress-relay', env: {}, metricsPort: Number(env['METRICS_PORT']) };
    try {
      await waitLive(spec, started, Math.max(0, deadline - Date.now()), output);
      return { env, stdout: () => stdout };
    } catch (err) {
      if (started.exitCode === null && started.signalCode === null) throw err; // not live in time: waitLive says why
    }
    await closed;
    if (stderr.includes('EADDRINUSE') && Date.now() < deadline) continue;
    throw new Error(`the relay exited (${started.exitCode ?? started.signalCode}) before it was live (attempt ${attempt}); its stderr:\n${stderr}`);
  }
}

async function readiness(metricsPort: string | undefined): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${metricsPort}/readyz`, { signal: AbortSignal.timeout(2_000) });
  return { status: res.status, body: await res.json() };
}

it('without RELAY_SOURCE_IPS it is live but not ready, and says which variable is missing', async () => {
  const { env } = await startRelay({});
  const ready = await readiness(env['METRICS_PORT']);
  expect(ready.status).toBe(503);
  expect(ready.body.checks.source_ips).toMatch(/RELAY_SOURCE_IPS is empty/);
}, 30_000);

it('with an address this host does not have, it is not ready and names that address', async () => {
  const { env } = await startRelay({ RELAY_SOURCE_IPS: '127.0.0.2,203.0.113.7' });
  const ready = await readiness(env['METRICS_PORT']);
  expect(ready.status).toBe(503);
  expect(ready.body.checks.source_ips).toBe('RELAY_SOURCE_IPS has addresses this host does not have: 203.0.113.7 (sends from them fail)');
}, 30_000);

it('RELAY_EGRESS_MODE=natt stops the start, naming the variable and what it may be', async () => {
  const run = spawnSync(process.execPath, [main], {
    env: await relayEnv({ RELAY_SOURCE_IPS: '127.0.0.2', RELAY_EGRESS_MODE: 'natt' }),
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(run.status).toBe(1);
  expect(run.stderr).toContain('egress-relay: invalid configuration');
  expect(run.stderr).toMatch(/^✖ must be bind .* or nat .*\n\s*→ at RELAY_EGRESS_MODE$/m);
}, 30_000);

it('a relay that exits at start fails its start here at once, with its own stderr (the helper the tests here start it through)', async () => {
  const start = startRelay({ RELAY_SOURCE_IPS: '127.0.0.2', RELAY_EGRESS_MODE: 'natt' });
  await expect(start).rejects.toThrow(/^the relay exited \(1\) before it was live \(attempt 1\); its stderr:\n(.|\n)*→ at RELAY_EGRESS_MODE/);
}, 10_000);

it('in nat mode an address this host does not have (the NAT gateway’s) is ready, logged at start, and recorded as the send’s source', async () => {
  const { env, stdout } = await startRelay({ RELAY_SOURCE_IPS: '198.51.100.20', RELAY_EGRESS_MODE: 'nat', LOG_FORMAT: 'json' });
  await eventually(async () => expect((await readiness(env['METRICS_PORT'])).status).toBe(200), 20_000, 100);
  expect(stdout()).toMatch(
    /"mode":"nat","sourceIps":\["198\.51\.100\.20"\],"msg":"egress relay in nat mode \(connections not bound[^"]*\): pool 198\.51\.100\.20"/,
  );

  const client = new RelayGrpcClient({ address: `127.0.0.1:${env['GRPC_PORT']}`, authToken: TOKEN, deadlineMs: 10_000 });
  try {
    const result = await client.send(delivery('ep_nat'));
    expect(result).toMatchObject({ ok: true, status: 200, sourceIp: '198.51.100.20' });
    expect(named.receiver.requests.at(-1)?.remoteAddress).toBe('127.0.0.1');
    expect(await readMetric(`http://127.0.0.1:${env['METRICS_PORT']}`, 'wirehook_relay_sends_total', { source_ip: '198.51.100.20', outcome: 'success' })).toBe(
      1,
    );
  } finally {
    client.close();
  }
}, 30_000);

it('in nat mode without RELAY_SOURCE_IPS it is not ready either', async () => {
  const { env } = await startRelay({ RELAY_EGRESS_MODE: 'nat' });
  const ready = await readiness(env['METRICS_PORT']);
  expect(ready.status).toBe(503);
  expect(ready.body.checks.source_ips).toMatch(/RELAY_SOURCE_IPS is empty/);
}, 30_000);

it('RELAY_SOURCE_IPS that is not a list of addresses stops the start, naming the variable and the value', async () => {
  const run = spawnSync(process.execPath, [main], { env: await relayEnv({ RELAY_SOURCE_IPS: '127.0.0.2,relay.example' }), encoding: 'utf8', timeout: 20_000 });
  expect(run.status).toBe(1);
  expect(run.stderr).toContain('egress-relay: invalid configuration');
  // loadConfig's format: the problem (naming the value) on one line, the variable under it.
  expect(run.stderr).toMatch(/^✖ "relay\.example" is not an IPv4 or IPv6 address .*\n\s*→ at RELAY_SOURCE_IPS$/m);
}, 30_000);

it('with a pool it is ready; Relay.Deliver sends from the pool address, counted per source address in its /metrics', async () => {
  const { env } = await startRelay({ RELAY_SOURCE_IPS: '127.0.0.2' });
  await eventually(async () => expect((await readiness(env['METRICS_PORT'])).status).toBe(200), 20_000, 100);

  const client = new RelayGrpcClient({ address: `127.0.0.1:${env['GRPC_PORT']}`, authToken: TOKEN, deadlineMs: 10_000 });
  try {
    const result = await client.send(delivery('ep_process', '{"a":1}'));
    expect(result).toMatchObject({ ok: true, status: 200, error: null, sourceIp: '127.0.0.2' });
    expect(named.receiver.requests.at(-1)).toMatchObject({ remoteAddress: '127.0.0.2', body: '{"a":1}' });
    const metrics = `http://127.0.0.1:${env['METRICS_PORT']}`;
    expect(await readMetric(metrics, 'wirehook_relay_sends_total', { source_ip: '127.0.0.2', outcome: 'success' })).toBe(1);

    // Its own address rules: the receiver by address is private and not allowed here (only its name is).
    const blocked = await client.send({ ...delivery('ep_process'), url: `https://${named.ip}:8443/hook` });
    expect(blocked).toMatchObject({ ok: false, status: null, error: expect.stringMatching(/^blocked: 127\.0\.0\.\d+ is/) });
    expect(await readMetric(metrics, 'wirehook_relay_sends_total', { outcome: 'blocked' })).toBe(1);
    // Only what the dispatcher sends: another port is a relay error, counted as one.
    const refused = await client.send({ ...delivery('ep_process'), url: named.url().replace(':8443', ':9443') });
    expect(refused).toMatchObject({ ok: false, error: 'relay: refused a request the dispatcher does not send: url must use port 443 or 8443' });
    expect(await readMetric(metrics, 'wirehook_relay_sends_total', { outcome: 'relay' })).toBe(1);
  } finally {
    client.close();
  }
}, 30_000);

it('a stop allows its sends a relay call’s deadline and 5 s (main hands runService core’s senderStopMs)', async () => {
  const { stdout } = await startRelay({ RELAY_SOURCE_IPS: '127.0.0.2', DELIVERY_TIMEOUT_MS: '12000', LOG_FORMAT: 'json' });
  const closed = once(child!, 'close');
  child!.kill('SIGTERM');
  expect((await closed)[0]).toBe(0);
  const lines = stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; deadlineMs?: number });
  // 2 × 12 s (a connection's wait, the attempt) + 5 s (the call) + 5 s; every other service stops within 20 s.
  expect(lines.find((l) => l.msg === 'shutting down')?.deadlineMs).toBe(34_000);
}, 30_000);
