// Embedded mode as a user runs it: `node services/embedded/src/main.ts` as a real process,
// and the admin CLI as another real process against the same DATA_DIR while it runs.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELD_AFTER_STOP, SAME_KEYPRESS_MS } from '@wirehook/platform';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiClient, eventually, freePort } from '@wirehook/testkit';

import { EMBEDDED_START_MS, runAdmin, spawnEmbedded, whileRunning } from '../support/embedded-process.ts';
import { answerFrame, firstRequest, listenSocket } from '../support/listen-socket.ts';

let dataDir: string;
let server: ChildProcess;
let stderr = '';
let stdout = '';
let api: ApiClient;

const admin = (...args: string[]) => runAdmin(dataDir, args);

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'wirehook-embedded-'));
  const port = await freePort();
  // DELIVERY_TIMEOUT_MS: the stop's deadline follows it (the last test).
  server = await spawnEmbedded({ port, dataDir, env: { LOG_LEVEL: 'info', DELIVERY_TIMEOUT_MS: '12000' } });
  server.stderr!.on('data', (d) => (stderr += d));
  server.stdout!.on('data', (d) => (stdout += d));
  await whileRunning(
    server,
    () => stderr,
    eventually(() => expect(stdout).toContain('wirehook ready'), EMBEDDED_START_MS),
  );
  api = new ApiClient(`http://127.0.0.1:${port}`);
});

afterAll(() => {
  if (server.exitCode === null) server.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded mode and the admin CLI', () => {
  it('tells a newcomer how to create an org and a key', () => {
    expect(stderr).toContain('admin org create --name');
    expect(stderr).toContain('admin key create --org');
  });

  it('creates an org and a key while the server runs; the key works at once', async () => {
    const org = await admin('org', 'create', '--name', 'Acme', '--plan', 'starter', '--owner-email', 'ops@acme.test');
    expect(org.code).toBe(0);
    expect(org.stdout.trim().split('\n')).toHaveLength(1);
    expect(org.json).toEqual({ id: expect.stringMatching(/^org_/), name: 'Acme', plan: 'starter' });

    const key = await admin('key', 'create', '--org', org.json['id'], '--env', 'test', '--scopes', 'logs:read,consumers:write');
    expect(key.json).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^sk_test_/),
      env: 'test',
      scopes: ['logs:read', 'consumers:write'],
    });
    const client = api.as(key.json['key']);
    expect((await client.post('/v1/consumers', { external_id: 'first' })).status).toBe(201);
    expect((await client.get('/v1/consumers')).body.items).toHaveLength(1);
    expect((await client.post('/v1/event-types', { name: 'x' })).status).toBe(403);

    expect((await admin('key', 'revoke', '--id', key.json['id'])).json).toEqual({ id: key.json['id'], revoked_at: expect.any(Number) });
    expect((await client.get('/v1/consumers')).status).toBe(401);

    const full = await admin('key', 'create', '--org', org.json['id'], '--env', 'live');
    expect(full.json['scopes']).toEqual(['messages:send', 'messages:retry', 'logs:read', 'consumers:write', 'endpoints:write']);
    expect((await admin('org', 'set-plan', '--org', org.json['id'], '--plan', 'business')).json).toMatchObject({ plan: 'business' });
  });

  it('says on stderr when it made a new database (an operator in the wrong directory notices), and only then', async () => {
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'wirehook-admin-')), 'data');
    try {
      const first = await runAdmin(elsewhere, ['org', 'create', '--name', 'Lost']);
      expect(first.code).toBe(0);
      expect(first.stderr).toContain(`admin: no database in DATA_DIR; created a new one at ${join(elsewhere, 'wirehook.sqlite')}`);
      expect(first.stdout.trim().split('\n')).toHaveLength(1); // stdout stays one JSON document
      const second = await runAdmin(elsewhere, ['org', 'create', '--name', 'Found']);
      expect(second.stderr).not.toContain('created a new one');
      expect((await admin('org', 'create', '--name', 'Here')).stderr).not.toContain('created a new one');
    } finally {
      rmSync(dirname(elsewhere), { recursive: true, force: true });
    }
  });

  it('prints one JSON error document and exits non-zero on bad input', async () => {
    const cases = [];
    for (const args of [
      ['org', 'create'],
      ['org', 'create', '--name', 'x', '--plan', 'gold'],
      ['key', 'create', '--org', 'org_nope', '--env', 'live'],
      ['key', 'create', '--org', 'org_nope', '--env', 'prod'],
      ['key', 'revoke', '--id', 'key_01KAAAAAAAAAAAAAAAAAAAAAAA'],
      ['fly', 'away'],
      ['org', 'create', '--bogus'],
    ]) {
      cases.push(await admin(...args));
    }
    for (const res of cases) {
      expect(res.code).not.toBe(0);
      expect(res.stdout.trim().split('\n')).toHaveLength(1);
      expect(res.json).toEqual({ error: expect.any(String), message: expect.any(String) });
    }
    expect(cases[1]!.json['message']).toBe('--plan must be one of free, starter, pro, business');
    expect(cases[2]!.json).toEqual({ error: 'not_found', message: 'org org_nope not found' });
    // Seven CLI processes one after another, each a Node start: about 5 s each on a loaded 2-core
    // CI (35 s once, past the 30 s default), a bound for a machine's load and not for the CLI.
  }, 120_000);

  it("logs JSON and stops cleanly on SIGTERM, allowing its sends in flight a sender's deadline", async () => {
    // 'close', not 'exit': after 'exit' the pipe may still hold the last lines this reads.
    const exited = new Promise<number | null>((resolve) => server.once('close', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: number; msg: string; deadlineMs?: number });
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['wirehook ready', 'shutting down', 'stopped']));
    // Ended by itself: nothing held it open after its stop (runComponents would say so, and end it).
    expect(lines.filter((l) => l.msg === HELD_AFTER_STOP)).toEqual([]);
    // A send may wait 12 s for a connection and 12 s for its answer: 2 × 12 + 5 (a relay call) + 5 s, not every
    // other process's 20 s (core's senderStopMs); and 5 s before it for `wirehook listen`'s drain (LISTEN_DRAIN_MS).
    expect(lines.find((l) => l.msg === 'shutting down')?.deadlineMs).toBe(39_000);
    expect(stdout).not.toMatch(/sk_(live|test)_/);
  });
});

describe('embedded mode stopped while it starts', () => {
  it('Ctrl-C (SIGINT) right after its banner: what started stops, nothing more starts, it ends with 0 — not serving on until its deadline', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wirehook-embedded-early-'));
    try {
      // A 12 s attempt limit makes the deadline 39 s: without the start's check, the rest of its
      // parts start after the stop (the API among them) and hold it there, to end with 1.
      const early = await spawnEmbedded({ port: await freePort(), dataDir: dir, env: { LOG_LEVEL: 'info', DELIVERY_TIMEOUT_MS: '12000' } });
      let out = '';
      let err = '';
      early.stdout!.on('data', (d) => (out += d));
      early.stderr!.on('data', (d) => (err += d));
      const exited = new Promise<number | null>((resolve) => early.once('close', (code) => resolve(code)));
      // The banner is written as its parts begin to start (the store opens, its threads start, the API listens), its stop
      // signals already taken (written before them, a SIGINT in between ended the process outright: seen in CI).
      await eventually(() => expect(err).toContain('Wirehook (embedded mode): API on'), EMBEDDED_START_MS, 5);
      early.kill('SIGINT');
      expect(await exited, err).toBe(0);
      expect(out).toContain('"msg":"stopped"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('embedded mode stopping', () => {
  /**
   * Embedded mode in `dir`, ready, with a `wirehook listen` connection holding a webhook it never
   * answers (the stop then waits for it, up to the listeners' drain): what the stopping tests signal.
   */
  async function heldByListener(dir: string) {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const child = await spawnEmbedded({ port, dataDir: dir, env: { LOG_LEVEL: 'info', METRICS_PORT: String(metricsPort) } });
    const seen = { out: '', err: '' };
    child.stdout!.on('data', (d) => (seen.out += d));
    child.stderr!.on('data', (d) => (seen.err += d));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    await whileRunning(
      child,
      () => seen.err,
      eventually(() => expect(seen.out).toContain('wirehook ready'), EMBEDDED_START_MS),
    );
    const org = await runAdmin(dir, ['org', 'create', '--name', 'Acme']);
    const key = String((await runAdmin(dir, ['key', 'create', '--org', org.json['id'], '--env', 'test'])).json['key']);
    const wirehook = { url: `http://127.0.0.1:${port}` };
    const { ws, frames } = await listenSocket(wirehook, key);
    const sent = await new ApiClient(wirehook.url).as(key).post('/v1/messages', { consumer: 'wirehook-listen', event_type: 'order.created', payload: {} });
    expect(sent.status).toBe(202);
    const held = await firstRequest(frames);
    const readyz = async () => {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/readyz`);
      return { status: res.status, checks: ((await res.json()) as { checks: Record<string, string> }).checks };
    };
    return { child, seen, exited, readyz, answer: () => ws.send(answerFrame(held.id)) };
  }

  it('not ready from its stop on (/readyz 503 naming stopping) while a listener holds it, a second SIGTERM changing nothing; then ends with 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wirehook-embedded-stopping-'));
    try {
      const { child, seen, exited, readyz, answer } = await heldByListener(dir);
      expect((await readyz()).status).toBe(200);
      child.kill('SIGTERM');
      // Its API still listens (the listener's drain comes first): only the stop itself makes it not ready.
      await eventually(async () =>
        expect(await readyz()).toEqual({ status: 503, checks: expect.objectContaining({ stopping: expect.stringContaining('stopping'), api: 'ok' }) }),
      );
      // A second SIGTERM while it drains is no second stop (its listener stays: once removed, the default action killed it here).
      child.kill('SIGTERM');
      expect((await readyz()).status).toBe(503);
      answer();
      expect(await exited, seen.err).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a second Ctrl-C while a listener holds its stop ends it at once with 130, the rest of the stop not waited for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wirehook-embedded-second-'));
    try {
      const { child, seen, exited } = await heldByListener(dir);
      child.kill('SIGINT');
      await eventually(() => expect(seen.out).toContain('shutting down'));
      // Not the same keypress forwarded twice (a wrapper's): a person pressing again.
      await sleep(SAME_KEYPRESS_MS + 100);
      child.kill('SIGINT');
      expect(await exited, seen.err).toBe(130);
      expect(seen.out).toContain('a second Ctrl-C; exiting now');
      expect(seen.out).not.toContain('"msg":"stopped"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
