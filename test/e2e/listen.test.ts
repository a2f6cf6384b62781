// `wirehook listen` through the built CLI (packages/cli/dist) against embedded Wirehook: a
// webhook reaches a plain http://localhost server, which verifies it with the official
// standardwebhooks library; the attempt is recorded `via: "listen"`; a live key and another
// organisation's consumer are refused; a listener that vanishes gets a `connection` error and
// its retry reaches the CLI once it is back; Ctrl-C removes the listener endpoint.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, spawnTestProcess } from '@wirehook/testkit';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';

const REPO = new URL('../..', import.meta.url).pathname;
const CLI = join(REPO, 'packages/cli/dist/main.js');

/** A developer's local server: records each webhook and whether it verified with `secret`. */
interface Local {
  url: string;
  secret: string | null;
  received: { id: string; type: string; verified: boolean }[];
  close(): Promise<void>;
}

async function localServer(): Promise<Local> {
  const local: Local = { url: '', secret: null, received: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      try {
        new Webhook(local.secret ?? '').verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch {}
      local.received.push({ id: String(req.headers['webhook-id']), type: (JSON.parse(body) as { type: string }).type, verified });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  local.url = `http://localhost:${(server.address() as AddressInfo).port}/webhook`;
  local.close = () => new Promise((resolve) => server.close(() => resolve()));
  return local;
}

/** A running `wirehook …` with what it printed so far. */
interface Cli {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

let wh: Harness;
const running: Cli[] = [];

function cli(key: string, ...args: string[]): Cli {
  const child = spawnTestProcess(process.execPath, [CLI, ...args], {
    env: { PATH: process.env['PATH'], WIREHOOK_API_KEY: key, WIREHOOK_API_URL: wh.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const run = { child, out: () => out, err: () => err, exited };
  running.push(run);
  return run;
}

/** `wirehook listen` until it is ready; @returns it and the secret it printed. */
async function listening(key: string, forwardTo: string, ...more: string[]): Promise<Cli & { secret: string }> {
  const run = cli(key, 'listen', '--forward-to', forwardTo, ...more);
  const secret = await eventually(() => {
    const found = /signing secret is (whsec_\S+)/.exec(run.out());
    if (!found) throw new Error(`not ready yet:\n${run.out()}\n${run.err()}`);
    return found[1]!;
  }, 15_000);
  return { ...run, secret };
}

async function trigger(key: string, eventType: string): Promise<string> {
  const run = cli(key, 'trigger', eventType, '--payload', '{"amount":42}');
  expect(await run.exited, run.err()).toBe(0);
  return /(msg_\S+)/.exec(run.out())![1]!;
}

async function attemptsOf(t: TestTenant, messageId: string) {
  const message = await t.api.get(`/v1/messages/${messageId}`);
  const delivery = await t.api.get(`/v1/deliveries/${message.body.deliveries[0].id}`);
  return delivery.body.attempts as { via: string; error: string | null; response_status: number | null }[];
}

beforeAll(async () => {
  execFileSync('pnpm', ['-C', join(REPO, 'packages/cli'), 'run', 'build'], { stdio: 'ignore' });
  wh = await startWirehook();
}, 120_000);

afterEach(async () => {
  for (const run of running.splice(0)) {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    await run.exited;
  }
});

afterAll(async () => {
  await wh?.close();
});

describe('wirehook listen', () => {
  it('forwards a signed webhook to a local http server and records the attempt via listen', async () => {
    const t = await wh.tenant({ env: 'test' });
    const local = await localServer();
    try {
      const listen = await listening(t.key, local.url, '--events', 'invoice.paid');
      local.secret = listen.secret;
      const endpoints = await t.api.get('/v1/endpoints');
      expect(endpoints.body.items).toEqual([expect.objectContaining({ type: 'listen', url: local.url, event_types: ['invoice.paid'] })]);
      const messageId = await trigger(t.key, 'invoice.paid');
      await eventually(() => expect(local.received).toEqual([{ id: messageId, type: 'invoice.paid', verified: true }]), 15_000);
      await eventually(async () =>
        expect(await attemptsOf(t, messageId)).toEqual([expect.objectContaining({ via: 'listen', response_status: 200, error: null })]),
      );
      await eventually(() => expect(listen.out()).toMatch(new RegExp(`→ 200 invoice\\.paid ${messageId} \\d+ ms`)));
      // Ctrl-C: the CLI exits cleanly and its listener endpoint is removed.
      listen.child.kill('SIGINT');
      expect(await listen.exited).toBe(0);
      await eventually(async () => expect((await t.api.get('/v1/endpoints')).body.items).toEqual([]));
    } finally {
      await local.close();
    }
  }, 60_000);

  it('refuses a live key with 403', async () => {
    const live = await wh.tenant({ env: 'live' });
    const run = cli(live.key, 'listen', '--forward-to', 'http://localhost:3000/webhook');
    expect(await run.exited).toBe(1);
    expect(run.err()).toContain('403 forbidden');
    expect((await live.api.get('/v1/endpoints')).body.items).toEqual([]);
  }, 30_000);

  it("refuses another organisation's consumer with 404", async () => {
    const other = await wh.tenant({ env: 'test' });
    const theirs = await other.api.post('/v1/consumers', { external_id: 'theirs' });
    const t = await wh.tenant({ env: 'test' });
    const run = cli(t.key, 'listen', '--forward-to', 'http://localhost:3000/webhook', '--consumer', theirs.body.id);
    expect(await run.exited).toBe(1);
    expect(run.err()).toContain('404 not_found');
    expect((await other.api.get('/v1/endpoints')).body.items).toEqual([]);
  }, 30_000);

  it('gives a vanished listener a connection error, and its retry reaches the CLI when it is back', async () => {
    const t = await wh.tenant({ env: 'test' });
    const local = await localServer();
    try {
      const first = await listening(t.key, local.url);
      const [listener] = (await t.api.get('/v1/endpoints')).body.items;
      first.child.kill('SIGKILL');
      await first.exited;
      await eventually(() => expect(wh.embedded.listeners.connected(listener.id)).toBe(false));
      const messageId = await trigger(t.key, 'order.created');
      await eventually(async () =>
        expect(await attemptsOf(t, messageId)).toEqual([expect.objectContaining({ via: 'listen', error: expect.stringMatching(/^connection: /) })]),
      );
      // Back within the minute: the same listener endpoint (and secret) is taken over.
      const second = await listening(t.key, local.url);
      expect(second.secret).toBe(first.secret);
      expect((await t.api.get('/v1/endpoints')).body.items.map((e: { id: string }) => e.id)).toEqual([listener.id]);
      local.secret = second.secret;
      // To the retry's time (its signature's timestamp is the clock's: standardwebhooks checks it against now).
      const message = await t.api.get(`/v1/messages/${messageId}`);
      await wh.advance(message.body.deliveries[0].next_attempt_at - wh.clock.now());
      await eventually(() => expect(local.received).toEqual([{ id: messageId, type: 'order.created', verified: true }]), 15_000);
      await eventually(async () => expect((await attemptsOf(t, messageId)).map((a) => a.response_status)).toContain(200));
    } finally {
      await local.close();
    }
  }, 60_000);
});
