// Admin CLI: `pnpm -s admin <command>` prints exactly one JSON document on stdout — the
// result, or `{ error, message }` with a non-zero exit. It opens the same store as the
// server (DATA_DIR) and is safe to run while the server runs.
import { z } from 'zod';
import { systemClock, toErrorResponse, WirehookError } from '@wirehook/core';
import { loadConfig } from '@wirehook/platform';
import { openEmbeddedStore } from '@wirehook/store';
import { runAdminCommand } from './commands.ts';

const config = loadConfig(
  z.object({
    DATA_DIR: z.string().min(1).default('./.wirehook'), // where embedded mode keeps its data
  }),
  process.env,
  'admin',
);

const store = openEmbeddedStore(config.DATA_DIR);
try {
  const output = await runAdminCommand(process.argv.slice(2), { store, clock: systemClock });
  process.stdout.write(`${JSON.stringify(output)}\n`);
} catch (err) {
  const known = err instanceof WirehookError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  const body = known
    ? { error: 'invalid', message: (err as Error).message, ...(err instanceof WirehookError ? err.toBody() : {}) }
    : toErrorResponse(err).body;
  if (!known) process.stderr.write(`${String((err as Error).stack ?? err)}\n`);
  process.stdout.write(`${JSON.stringify(body)}\n`);
  process.exitCode = err instanceof WirehookError && err.code !== 'invalid' ? 1 : 2;
} finally {
  await store.close();
}
