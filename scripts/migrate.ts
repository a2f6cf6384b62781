// `wirehook migrate`: brings the store's schema (SQLite migrations, MongoDB indexes and
// document migrations) and the JetStream streams up to this build, then exits 0. The chart
// runs it as a Job; the services do the same at start, so it is an early, visible failure
// rather than a required step. It waits for the store and NATS (a Job may start before
// them), at most MIGRATE_WAIT_SECONDS in all, printing progress, then exits 1 naming what
// never answered. `--store-only`: the store alone (a NATS that does not exist yet, such as
// one the same release installs, gets its streams from the services when they connect).
import { z } from 'zod';
import { NatsBus } from '@wirehook/bus';
import {
  abortOnSignals,
  connectWithRetry,
  describeStore,
  checkNatsEnv,
  loadConfig,
  natsBusOptions,
  natsEnv,
  openStore,
  RetryDeadlineError,
  StartupError,
  storeEnv,
  type RetryProgress,
} from '@wirehook/platform';

const args = process.argv.slice(2);
if (args.some((arg) => arg !== '--store-only')) {
  process.stderr.write('usage: wirehook migrate [--store-only]\n');
  process.exit(2);
}
const storeOnly = args.includes('--store-only');

const migrateEnv = {
  MIGRATE_WAIT_SECONDS: z.coerce // how long to wait for the store and NATS together before giving up (exit 1)
    .number({ error: 'must be whole seconds, 0 or more' })
    .int({ error: 'must be whole seconds, 0 or more' })
    .min(0, { error: 'must be whole seconds, 0 or more' })
    .default(300),
};
const config = loadConfig(z.object({ ...storeEnv, ...natsEnv, ...migrateEnv }).superRefine(checkNatsEnv), process.env, 'migrate');
const waitSeconds = config.MIGRATE_WAIT_SECONDS;
const deadlineAt = Date.now() + waitSeconds * 1_000;
const started = Date.now();
// Progress is printed by `waitFor`: the service wording of connectWithRetry's log does not fit a Job.
const quiet = { warn: () => {}, info: () => {} };
// A Job's pod deleted (SIGTERM), or Ctrl-C, while it waits or upgrades: the waits end, a MongoDB
// layout upgrade gives its lease up (the next run need not wait 120 s for it), and migrate exits
// 143 or 130 saying so. Every step starts over safely next time.
const stop = abortOnSignals();
/** The store's open under way: it hears the stop itself, and gives the lease up before it settles. */
let opening: Promise<unknown> | undefined;
/** How long a stopped migrate waits for that before it exits anyway (the lease then runs out). */
const GIVE_UP_WAIT_MS = 10_000;
const exitIfStopped = async (): Promise<void> => {
  if (!stop.signal.aborted) return;
  await Promise.race([opening?.catch(() => {}), new Promise((resolve) => setTimeout(resolve, GIVE_UP_WAIT_MS).unref())]);
  process.stderr.write(`migrate: stopped by ${stop.by} before it finished; the next run starts over where it must\n`);
  process.exit(stop.exitCode());
};

/** Connects to `what` through `connect`, retrying until the shared deadline; exits 1 naming it when that passes. */
async function waitFor<T>(what: string, connect: () => Promise<T>): Promise<T> {
  const onRetry = ({ attempt }: RetryProgress) => {
    const elapsed = Math.round((Date.now() - started) / 1_000);
    process.stderr.write(`migrate: waiting for ${what} (attempt ${attempt}, ${elapsed} s of ${waitSeconds})\n`);
  };
  try {
    return await connectWithRetry(what, connect, quiet, { deadlineAt, onRetry, signal: stop.signal });
  } catch (err) {
    await exitIfStopped();
    if (err instanceof StartupError) {
      // Refused, not unreachable (a wrong NATS credential): waiting longer cures nothing.
      process.stderr.write(`migrate: ${err.message}\n`);
      process.exit(1);
    }
    if (!(err instanceof RetryDeadlineError)) throw err;
    process.stderr.write(`migrate: gave up after MIGRATE_WAIT_SECONDS=${waitSeconds}: ${err.message}\n`);
    process.exit(1);
  }
}

const store = await waitFor(`the store (${describeStore(config)})`, () => (opening = openStore(config, { signal: stop.signal })));
await store.close();
// Asked while the store opened without a turn of the event loop (SQLite's): heard now, not after the streams.
if (await stop.asked()) await exitIfStopped();
process.stderr.write(`migrate: ${describeStore(config)} is current\n`);
if (!storeOnly) {
  const nats = natsBusOptions(config);
  const url = nats.servers;
  const streamLogger = {
    info: (_: unknown, message: string) => process.stderr.write(`migrate: ${message}\n`),
    warn: (_: unknown, message: string) => process.stderr.write(`migrate: warning: ${message}\n`),
  };
  const bus = await waitFor(`NATS at ${url}`, () => NatsBus.connect({ ...nats, name: 'migrate', streamLogger }));
  await bus.close();
  process.stderr.write(`migrate: JetStream streams at ${url} are current\n`);
}
