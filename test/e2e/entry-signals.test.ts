// The container's entry point (scripts/service.ts, the image's ENTRYPOINT) holds the stop signals
// before a service's or a job's modules load: a signal in that second reaches the stop the process
// sets up later — not the default action (a death by the signal; none at all for a container's
// PID 1, where it was lost) — and a job that opens SQLite without a turn of the event loop hears it too.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@wirehook/testkit';
import { describe, expect, it } from 'vitest';

const ENTRY = join(import.meta.dirname, '..', '..', 'scripts', 'service.ts');

/**
 * Preloaded: sends the process KILL_SIGNAL as it resolves the module whose URL ends with KILL_AT
 * (mid-load, whatever listeners exist then), saying so on stderr.
 */
const SIGNAL_MID_LOAD = `--import=data:text/javascript,${encodeURIComponent(
  "import { registerHooks } from 'node:module'; let sent = false; registerHooks({ resolve(specifier, context, next) { " +
    'const resolved = next(specifier, context); if (!sent && resolved.url.endsWith(process.env.KILL_AT)) { sent = true; ' +
    "process.stderr.write('signal sent mid-load\\n'); process.kill(process.pid, process.env.KILL_SIGNAL); } return resolved; } });",
)}`;

async function run(args: string[], env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'wirehook-entry-'));
  try {
    const child = spawn(process.execPath, [SIGNAL_MID_LOAD, ENTRY, ...args], {
      env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    expect(stderr).toContain('signal sent mid-load');
    return { code, signal, stdout, stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the entry point holding the stop signals while a service or a job loads', () => {
  it('embedded mode: a SIGTERM as its main is resolved stops it in order (exit 0), never started', async () => {
    const ports = { PORT: String(await freePort()), METRICS_PORT: String(await freePort()), PORTAL_PORT: String(await freePort()) };
    const { code, signal, stdout, stderr } = await run(['embedded'], {
      ...ports,
      HOST: '127.0.0.1',
      KILL_AT: '/services/embedded/src/main.ts',
      KILL_SIGNAL: 'SIGTERM',
    });
    expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
    expect(stdout).toContain('"reason":"SIGTERM"');
    expect(stdout).toContain('"msg":"stopped"');
    expect(stdout).not.toContain('wirehook ready');
  }, 60_000);

  it('the admin CLI: a Ctrl-C as it loads does nothing, says so and exits 130 (SQLite opens without a turn of the event loop)', async () => {
    const { code, signal, stdout, stderr } = await run(['admin', 'org', 'create', '--name', 'Acme'], {
      KILL_AT: '/packages/admin/src/commands.ts',
      KILL_SIGNAL: 'SIGINT',
    });
    expect({ code, signal }, stderr).toEqual({ code: 130, signal: null });
    expect(JSON.parse(stdout)).toEqual({ error: 'interrupted', message: 'SIGINT while the store opened; nothing was done' });
  }, 60_000);

  it('migrate --store-only: a SIGTERM as it loads ends it before it says the store is current (143)', async () => {
    const { code, signal, stderr } = await run(['migrate', '--store-only'], { KILL_AT: '/scripts/migrate.ts', KILL_SIGNAL: 'SIGTERM' });
    expect({ code, signal }, stderr).toEqual({ code: 143, signal: null });
    expect(stderr).toContain('migrate: stopped by SIGTERM before it finished');
    expect(stderr).not.toContain('is current');
  }, 60_000);
});
