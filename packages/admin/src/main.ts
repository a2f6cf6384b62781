// Admin CLI: `pnpm -s admin <command>` prints exactly one JSON document on stdout — the
// result, or `{ error, message }` with a non-zero exit. It opens the same store as the
// server (DATA_DIR) and is safe to run while the server runs.
import { z } from 'zod';
import { systemClock, toErrorResponse, WirehookError } from '@wirehook/core';
import { abortOnSignals, loadConfig, loadSealingKeys, openStore, StartupError, storeEnv } from '@wirehook/platform';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SQLITE_FILE_NAME } from '@wirehook/store';
import { runAdminCommand } from './commands.ts';

const config = loadConfig(z.object({ ...storeEnv }), process.env, 'admin');

// An operator in the wrong directory would otherwise get a fresh, empty database and an
// org id that looks fine: say on stderr (stdout stays one JSON document) that one was made.
const databaseFile = join(resolve(config.DATA_DIR), SQLITE_FILE_NAME);
const isNew = !config.MONGODB_URL && !existsSync(databaseFile);
// Ctrl-C (or SIGTERM) while the store opens ends a MongoDB layout upgrade under way, its lease
// given up (the next start need not wait 120 s for it to run out), and then the command: it does
// nothing and says so, still one JSON document, exit 130 (143 for SIGTERM). Once the store is open,
// the signals end the command as they did before (their default).
const interrupted = abortOnSignals();
const endInterrupted = (): never => {
  process.stdout.write(`${JSON.stringify({ error: 'interrupted', message: `${interrupted.by} while the store opened; nothing was done` })}\n`);
  process.exit(interrupted.exitCode());
};
const store = await openStore(config, { signal: interrupted.signal }).catch((err: unknown) => {
  // Its own failure (a newer layout, no server) is said as it was, interrupted or not.
  if (err === interrupted.signal.reason) endInterrupted();
  throw err;
});
// Asked while an open that does not hear it (SQLite's, MongoDB's index checks) went on: stopped before the command.
const askedWhileOpening = await interrupted.asked();
interrupted.dispose();
if (isNew) process.stderr.write(`admin: no database in DATA_DIR; created a new one at ${databaseFile}\n`);
if (askedWhileOpening) {
  await store.close();
  endInterrupted();
}
try {
  const output = await runAdminCommand(process.argv.slice(2), {
    store,
    clock: systemClock,
    keys: () => loadSealingKeys(config, process.env, { create: false }),
  });
  process.stdout.write(`${JSON.stringify(output)}\n`);
} catch (err) {
  const known = err instanceof WirehookError || err instanceof StartupError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  const body = known ? { error: 'invalid', message: (err as Error).message, ...(err instanceof WirehookError ? err.toBody() : {}) } : toErrorResponse(err).body;
  if (!known) process.stderr.write(`${String((err as Error).stack ?? err)}\n`);
  process.stdout.write(`${JSON.stringify(body)}\n`);
  // 2: bad arguments (what the caller can mend); 1: anything else — an unknown org or key, a fault (docs/semantics.md, "Admin CLI").
  process.exitCode = known && !(err instanceof WirehookError && err.code !== 'invalid') ? 2 : 1;
} finally {
  await store.close();
}
