import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LaunchOptions, Launcher, RunningWirehook } from './launcher.ts';
import { embeddedKillWaitMs, stopChild } from '@wirehook/cluster';
import { freePort } from '@wirehook/testkit';
import { runAdmin, tail } from './processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const READY_TIMEOUT_MS = 30_000;

/** Embedded mode: `node services/embedded/src/main.ts`, one process, SQLite in DATA_DIR. */
/** The variables this launcher sets for each Wirehook it starts (its ports, address and data): an A/B's B may not set them. */
export const LAUNCHER_ENV = ['PORT', 'METRICS_PORT', 'PORTAL_PORT', 'HOST', 'DATA_DIR'] as const;

export const embeddedLauncher: Launcher = {
  name: 'embedded',
  async launch(options: LaunchOptions): Promise<RunningWirehook> {
    const [port, metricsPort, portalPort] = [await freePort(), await freePort(), await freePort()];
    const own: Record<(typeof LAUNCHER_ENV)[number], string> = {
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      PORTAL_PORT: String(portalPort),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
    };
    const env = { ...process.env, ...own, LOG_LEVEL: 'info', ...options.env };
    const log = openSync(options.logFile, 'a');
    // The flags `./dev start` gives Wirehook's process (./dev sets them), so this measures what start runs.
    // An A/B's B may be given its own (`--ab-env WIREHOOK_NODE_FLAGS=…`).
    const startFlags = (options.env['WIREHOOK_NODE_FLAGS'] ?? process.env['WIREHOOK_NODE_FLAGS'])?.split(/\s+/).filter(Boolean) ?? [];
    const root = options.root ?? ROOT;
    const main = join(root, 'services/embedded/src/main.ts');
    const child = spawn(process.execPath, [...startFlags, ...options.execArgv, main], { env, stdio: ['ignore', log, log] });
    closeSync(log);
    // However the harness ends, Wirehook does not outlive it.
    const kill = () => child.kill('SIGKILL');
    process.once('exit', kill);
    child.once('exit', () => process.off('exit', kill));
    const apiUrl = `http://127.0.0.1:${port}`;
    try {
      await waitReady(child, apiUrl, options.logFile);
    } catch (err) {
      child.kill('SIGKILL');
      throw err;
    }
    return {
      apiUrl,
      pids: [child.pid!],
      metricsUrls: { embedded: `http://127.0.0.1:${metricsPort}` },
      admin: (args) => runAdmin(args, options.dataDir, root),
      // Embedded mode sends webhooks: its stop lets them finish (core's embeddedStopMs), and a launcher waits for that.
      stop: () => stopChild(child, 'SIGTERM', embeddedKillWaitMs(options.env['DELIVERY_TIMEOUT_MS'] ?? process.env['DELIVERY_TIMEOUT_MS'])),
    };
  },
};

async function waitReady(child: ChildProcess, apiUrl: string, logFile: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wirehook exited with ${child.exitCode} at start:\n${tail(logFile)}`);
    try {
      if ((await fetch(`${apiUrl}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`wirehook did not answer /healthz within ${READY_TIMEOUT_MS / 1000} s:\n${tail(logFile)}`);
}
