// The container's entry point: `wirehook <service>` runs one service (the image's command).
// Jobs: `migrate` (schema and indexes, JetStream streams: run before an upgrade), `admin …`.
import { holdEarlySignals } from '../packages/platform/src/signal-stop.ts';

const SERVICES: Record<string, string> = {
  gateway: '../services/gateway/src/main.ts',
  'message-intake': '../services/message-intake/src/main.ts',
  dispatcher: '../services/dispatcher/src/main.ts',
  'egress-relay': '../services/egress-relay/src/main.ts',
  recovery: '../services/recovery/src/main.ts',
  alerting: '../services/alerting/src/main.ts',
  portal: '../services/portal/src/main.ts',
  embedded: '../services/embedded/src/main.ts',
  migrate: './migrate.ts',
  admin: '../packages/admin/src/main.ts',
};

// First, before a service's modules load (a second or so): a SIGTERM meanwhile is kept for its
// stop, not lost (as the container's PID 1 a signal's default action is none).
holdEarlySignals();

const [name, ...rest] = process.argv.slice(2);
const entry = name === undefined ? undefined : SERVICES[name];
if (entry === undefined) {
  process.stderr.write(`usage: wirehook <${Object.keys(SERVICES).join('|')}> [args…]\n`);
  process.exit(2);
}
// The service reads its arguments as if it were started directly.
process.argv = [process.argv[0]!, entry, ...rest];
await import(entry);
