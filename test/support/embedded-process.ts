import type { ChildProcess, StdioOptions } from 'node:child_process';
import { join } from 'node:path';
import { freePort, spawnTestProcess } from '@wirehook/testkit';

const MAIN = join(import.meta.dirname, '..', '..', 'services/embedded/src/main.ts');

/**
 * Starts embedded Wirehook as its own process — what `./dev start` runs — on loopback: the
 * API on `port` (kept across restarts by the caller), metrics and portal on free ports, data
 * in `dataDir`; `env` adds to or overrides the rest of the environment.
 */
export async function spawnEmbedded(options: { port: number; dataDir: string; env?: Record<string, string>; stdio?: StdioOptions }): Promise<ChildProcess> {
  return spawnTestProcess(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(options.port),
      METRICS_PORT: String(await freePort()),
      PORTAL_PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
      ...options.env,
    },
    stdio: options.stdio ?? ['ignore', 'pipe', 'pipe'],
  });
}
