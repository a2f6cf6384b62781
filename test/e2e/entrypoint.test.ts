// The container's entry point (scripts/service.ts): names its services; `migrate` brings the
// store and the JetStream streams up to date and exits 0.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsServer, type NatsServer } from '@wirehook/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
let nats: NatsServer;
const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-migrate-'));
beforeAll(async () => {
  nats = await startNatsServer();
});
afterAll(async () => {
  await nats.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const run = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'scripts/service.ts'), ...args], {
    env: { ...process.env, DATA_DIR: dataDir, NATS_URL: nats.url },
    encoding: 'utf8',
  });

it('without a known service: the usage, exit 2', () => {
  const res = run('nope');
  expect(res.status).toBe(2);
  expect(res.stderr).toContain('usage: wirehook <gateway|message-intake|dispatcher|egress-relay|recovery|alerting|portal|embedded|migrate|admin>');
});

it('migrate: the store and the streams, then exit 0; again: still 0', () => {
  for (let i = 0; i < 2; i++) {
    const res = run('migrate');
    expect(res.status, res.stderr).toBe(0);
    expect(res.stderr).toContain(`migrate: SQLite in ${dataDir} is current`);
    expect(res.stderr).toContain(`migrate: JetStream streams at ${nats.url} are current`);
  }
});

it('admin through the entry point prints its one JSON document', () => {
  const res = run('admin', 'org', 'create', '--name', 'Via entrypoint');
  expect(res.status).toBe(0);
  expect(JSON.parse(res.stdout)).toMatchObject({ id: expect.stringMatching(/^org_/), name: 'Via entrypoint' });
});

it('admin exits 2 for a bad argument and 1 for an unknown org, each with its one JSON document (docs/semantics.md, "Admin CLI")', () => {
  const bad = run('admin', 'org', 'create');
  expect(bad.status).toBe(2);
  expect(JSON.parse(bad.stdout)).toMatchObject({ error: 'invalid', message: expect.stringContaining('--name') });
  const unknown = run('admin', 'key', 'create', '--org', 'org_01KAAAAAAAAAAAAAAAAAAAAAAA', '--env', 'test');
  expect(unknown.status).toBe(1);
  expect(JSON.parse(unknown.stdout)).toMatchObject({ error: 'not_found' });
});
