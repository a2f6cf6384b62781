// The container's entry point (scripts/service.ts, the image's ENTRYPOINT) takes the stop signals
// before a service's modules load: a SIGTERM in that second is kept for the stop, not lost (as the
// container's PID 1, a signal's default action is none) nor, outside a container, the default death.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@wirehook/testkit';
import { expect, it } from 'vitest';

const ENTRY = join(import.meta.dirname, '..', '..', 'scripts', 'service.ts');

/**
 * Preloaded: where the first SIGTERM listener is set, says so on stderr with its stack and sends
 * the process a SIGTERM (once that listener is in: a microtask later), so the signal comes while
 * what follows that listener still loads.
 */
const SIGTERM_AT_FIRST_LISTENER = `--import=data:text/javascript,${encodeURIComponent(
  "let said = false; process.on('newListener', (event) => { if (event !== 'SIGTERM' || said) return; said = true; " +
    "process.stderr.write('first SIGTERM listener\\n' + new Error().stack + '\\n'); queueMicrotask(() => process.kill(process.pid, 'SIGTERM')); })",
)}`;

it('a SIGTERM while the service loads is held at the entry point and stops it in order (exit 0)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wirehook-entry-'));
  try {
    const env = {
      ...process.env,
      PORT: String(await freePort()),
      METRICS_PORT: String(await freePort()),
      PORTAL_PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATA_DIR: dir,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    };
    const child = spawn(process.execPath, [SIGTERM_AT_FIRST_LISTENER, ENTRY, 'embedded'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = once(child, 'exit');
    const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    // Set by the entry point's hold, before embedded mode's own stop (stopOnSignals) was.
    expect(stderr.slice(stderr.indexOf('first SIGTERM listener')).split('\n').slice(0, 10).join('\n')).toContain('holdEarlySignals');
    expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
    expect(stdout).toContain('"reason":"SIGTERM"');
    expect(stdout).toContain('"msg":"stopped"');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
