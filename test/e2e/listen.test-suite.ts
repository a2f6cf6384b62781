// `wirehook listen` through the CLI (from its sources; the installed package: test/packages/cli-install.test.ts), in embedded mode (listen.test.ts)
// and cluster mode (the CLI's WebSocket on the gateway process, the sends from a dispatcher
// process over NATS: test/cluster/listen.cluster.test.ts): a webhook reaches a plain
// http://localhost server, which verifies it with the official standardwebhooks library; the
// attempt is recorded `via: "listen"`; a live key and another organisation's consumer are
// refused; a listener that vanishes gets a `connection` error and its retry reaches the CLI once
// it is back; a slow or failing local server is a slow or failing endpoint; Ctrl-C removes the
// listener endpoint.
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, spawnTestProcess } from '@wirehook/testkit';
import type { DeliveryHarness } from '../support/delivery-suite-context.ts';
import type { TestTenant } from '../support/harness.ts';

/**
 * The CLI from its sources (Node strips their types): the built package, installed as a user
 * installs it, runs `listen` and `trigger` in test/packages/cli-install.test.ts. A build of its
 * own here cost each of the two suites ≈ 6 s of CPU (tsc) for nothing that test does not check.
 */
const CLI = () => new URL('../../packages/cli/src/main.ts', import.meta.url).pathname;

/** A developer's local server: records each webhook and whether it verified with `secret`. */
interface Local {
  url: string;
  secret: string | null;
  /** How it answers (default 200 at once): a failing or slow developer server. */
  answer: { status: number; delayMs: number };
  received: { id: string; type: string; verified: boolean }[];
  close(): Promise<void>;
}

async function localServer(): Promise<Local> {
  const local: Local = { url: '', secret: null, answer: { status: 200, delayMs: 0 }, received: [], close: async () => {} };
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
      const { status, delayMs } = local.answer;
      setTimeout(() => res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'thanks' : 'local trouble'), delayMs);
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

let wh: DeliveryHarness;
const running: Cli[] = [];

function cli(key: string, ...args: string[]): Cli {
  const child = spawnTestProcess(process.execPath, [CLI(), ...args], {
    env: { PATH: process.env['PATH'], WIREHOOK_API_KEY: key, WIREHOOK_API_URL: wh.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  // 'close': the exit code once both pipes have been read to their end.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
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

/**
 * The listen suite against a Wirehook `start` gives (embedded, or a cluster of processes);
 * `more` adds a mode's own tests, after the suite's, on the same Wirehook (`harness()`).
 */
export function describeListenSuite<H extends DeliveryHarness>(mode: string, start: () => Promise<H>, more?: (harness: () => H) => void): void {
  describe(`wirehook listen (${mode})`, () => {
    beforeAll(async () => {
      wh = await start();
    }, 180_000);

    afterEach(async () => {
      for (const run of running.splice(0)) {
        if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
        await run.exited;
      }
    });

    afterAll(async () => {
      await wh?.close();
    });

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

    it('trigger: --consumer takes a con_ id (the consumer looked up by id); a live key and an extra argument are refused with 2, nothing sent', async () => {
      const t = await wh.tenant({ env: 'test' });
      const target = await t.api.post('/v1/consumers', { external_id: 'trigger-target' });
      const byId = cli(t.key, 'trigger', 'invoice.paid', '--consumer', target.body.id);
      expect(await byId.exited, byId.err()).toBe(0);
      expect(byId.out()).toMatch(/^sent invoice\.paid msg_\S+ to consumer trigger-target$/m);
      // Another organisation's consumer id is not found.
      const other = await wh.tenant({ env: 'test' });
      const theirs = await other.api.post('/v1/consumers', { external_id: 'theirs' });
      const foreign = cli(t.key, 'trigger', 'invoice.paid', '--consumer', theirs.body.id);
      expect(await foreign.exited).toBe(1);
      expect(foreign.err()).toContain('404 not_found');

      const live = await wh.tenant({ env: 'live' });
      const liveRun = cli(live.key, 'trigger', 'invoice.paid');
      expect(await liveRun.exited).toBe(2);
      expect(liveRun.err()).toContain('a live API key (sk_live_…) is refused');
      const extra = cli(t.key, 'trigger', 'invoice.paid', 'stray');
      expect(await extra.exited).toBe(2);
      expect(extra.err()).toContain('trigger takes one event type (got also stray)');
      const listenExtra = cli(t.key, 'listen', '--forward-to', 'http://localhost:3000/webhook', 'stray');
      expect(await listenExtra.exited).toBe(2);
      expect(listenExtra.err()).toContain('listen takes no arguments (got stray)');
      expect((await live.api.get('/v1/messages')).body.items).toEqual([]);
      expect((await t.api.get('/v1/messages')).body.items).toHaveLength(1);
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
        // Its WebSocket closes with the process: the attempt finds no listener (or loses it mid-send).
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

    it('a failing local server is a failing endpoint: its 500 recorded, the delivery retrying, counted in stats', async () => {
      const t = await wh.tenant({ env: 'test' });
      const local = await localServer();
      local.answer = { status: 500, delayMs: 0 };
      try {
        const listen = await listening(t.key, local.url);
        local.secret = listen.secret;
        const [listener] = (await t.api.get('/v1/endpoints')).body.items;
        const messageId = await trigger(t.key, 'invoice.failed');
        await eventually(async () => expect(await attemptsOf(t, messageId)).toEqual([expect.objectContaining({ via: 'listen', response_status: 500 })]));
        const message = await t.api.get(`/v1/messages/${messageId}`);
        expect(message.body.deliveries[0]).toMatchObject({ status: 'retrying' });
        // In cluster mode the dispatcher's rollups arrive within its flush interval (docs/semantics.md).
        await eventually(async () =>
          expect((await t.api.get(`/v1/endpoints/${listener.id}/stats`)).body).toMatchObject({
            attempts: 1,
            succeeded: 0,
            failed: 1,
            errors: { http_5xx: 1, timeout: 0, connection: 0 },
          }),
        );
        await eventually(() => expect(listen.out()).toMatch(new RegExp(`→ 500 invoice\\.failed ${messageId} \\d+ ms`)));
      } finally {
        await local.close();
      }
    }, 60_000);

    it('a slow local server is a slow endpoint: past the attempt’s time limit it is a timeout, retried', async () => {
      const t = await wh.tenant({ env: 'test' });
      const local = await localServer();
      // The harnesses send with DELIVERY_TIMEOUT_MS of 2 s (embedded) and 1 s (cluster): 3 s is past both.
      local.answer = { status: 200, delayMs: 3_000 };
      const listenLimit = mode === 'embedded' ? 1.75 : 0.75;
      try {
        const listen = await listening(t.key, local.url);
        local.secret = listen.secret;
        const [listener] = (await t.api.get('/v1/endpoints')).body.items;
        const messageId = await trigger(t.key, 'report.ready');
        await eventually(async () =>
          expect(await attemptsOf(t, messageId)).toEqual([
            // The CLI gives its local server the attempt's limit less 250 ms, and says so (1.75 s, 0.75 s).
            expect.objectContaining({ via: 'listen', response_status: null, error: `timeout: ${local.url} gave no response within ${listenLimit} s` }),
          ]),
        );
        expect((await t.api.get(`/v1/messages/${messageId}`)).body.deliveries[0]).toMatchObject({ status: 'retrying' });
        await eventually(async () => expect((await t.api.get(`/v1/endpoints/${listener.id}/stats`)).body).toMatchObject({ failed: 1, errors: { timeout: 1 } }));
        // Quick again: the retry succeeds.
        local.answer = { status: 200, delayMs: 0 };
        const message = await t.api.get(`/v1/messages/${messageId}`);
        await wh.advance(message.body.deliveries[0].next_attempt_at - wh.clock.now());
        await eventually(async () => expect((await attemptsOf(t, messageId)).map((a) => a.response_status)).toContain(200), 15_000);
      } finally {
        await local.close();
      }
    }, 60_000);

    it('--print-json prints each whole request: the signed headers and the body', async () => {
      const t = await wh.tenant({ env: 'test' });
      const local = await localServer();
      try {
        const listen = await listening(t.key, local.url, '--print-json');
        local.secret = listen.secret;
        const messageId = await trigger(t.key, 'invoice.paid');
        await eventually(() => expect(listen.out()).toMatch(new RegExp(`→ 200 invoice\\.paid ${messageId}`)));
        const printed = listen.out().slice(listen.out().indexOf('{'), listen.out().lastIndexOf('}') + 1);
        const request = JSON.parse(printed) as { headers: Record<string, string>; body: { type: string; data: unknown } };
        expect(request.headers).toMatchObject({ 'webhook-id': messageId, 'content-type': 'application/json' });
        expect(request.headers['webhook-signature']).toMatch(/^v1,/);
        expect(request.body).toMatchObject({ type: 'invoice.paid', data: { amount: 42 } });
      } finally {
        await local.close();
      }
    }, 60_000);

    more?.(() => wh as H);
  });
}
