// `wirehook migrate`: brings the store's schema (SQLite migrations, MongoDB indexes and
// document migrations) and the JetStream streams up to this build, then exits 0. The chart
// runs it as a pre-install/pre-upgrade Job; the services do the same at start, so it is an
// early, visible failure rather than a required step.
import { z } from 'zod';
import { NatsBus } from '@wirehook/bus';
import { describeStore, loadConfig, natsEnv, openStore, redactUrl, storeEnv } from '@wirehook/platform';

const config = loadConfig(z.object({ ...storeEnv, ...natsEnv }), process.env, 'migrate');
const store = await openStore(config);
await store.close();
process.stderr.write(`migrate: ${describeStore(config)} is current\n`);
const bus = await NatsBus.connect({ servers: config.NATS_URL, name: 'migrate' });
await bus.close();
process.stderr.write(`migrate: JetStream streams at ${redactUrl(config.NATS_URL)} are current\n`);
