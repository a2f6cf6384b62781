// `./dev start --cluster`: every Wirehook service as its own process, like the Helm chart
// deploys them, against nats-server (JetStream) and redis-server started here when
// NATS_URL / REDIS_URL are not given. Without MONGODB_URL the services share the SQLite
// file in DATA_DIR. Ctrl-C stops everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { loadConfig, portVar } from '@wirehook/platform';
import { startCluster } from './cluster.ts';

const config = loadConfig(
  z.object({
    PORT: portVar(8080), // public API (gateway)
    INTAKE_GRPC_PORT: portVar(50051), // message-intake gRPC
    METRICS_PORT: portVar(9464), // first metrics port; services take consecutive ones
    DATA_DIR: z.string().default('./.wirehook'), // SQLite file, secret key, JetStream store
    NATS_URL: z.string().optional().transform((v) => v || undefined), // default: start nats-server on 4222
    REDIS_URL: z.string().optional().transform((v) => v || undefined), // default: start redis-server on 6379
    DISPATCHERS: z.coerce.number().int().min(1).max(16).default(2), // dispatcher replicas
  }),
  process.env,
  'cluster',
);

const dataDir = resolve(config.DATA_DIR);
mkdirSync(dataDir, { recursive: true });
const servers: ChildProcess[] = [];
// Whatever happens to this process, the servers it started go with it.
process.on('exit', () => {
  for (const s of servers) s.kill('SIGTERM');
});

function startServer(name: string, args: string[]): string {
  const child = spawn(name, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  child.on('error', (err) => {
    process.stderr.write(`cluster: cannot run ${name} (${err.message}); install it or set ${name === 'nats-server' ? 'NATS_URL' : 'REDIS_URL'}\n`);
    process.exit(1);
  });
  servers.push(child);
  return name;
}

const natsUrl = config.NATS_URL ?? (startServer('nats-server', ['-js', '-sd', resolve(dataDir, 'nats'), '-a', '127.0.0.1', '-p', '4222']), 'nats://127.0.0.1:4222');
const redisUrl = config.REDIS_URL ?? (startServer('redis-server', ['--port', '6379', '--bind', '127.0.0.1', '--save', '', '--dir', dataDir]), 'redis://127.0.0.1:6379');
await Promise.all([waitForPort(natsUrl), waitForPort(redisUrl)]);

const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
const cluster = await startCluster({
  env: { ...env, DATA_DIR: dataDir, NATS_URL: natsUrl, REDIS_URL: redisUrl },
  ports: { api: config.PORT, intakeGrpc: config.INTAKE_GRPC_PORT, metricsBase: config.METRICS_PORT },
  dispatchers: config.DISPATCHERS,
});
process.stderr.write(`\nWirehook (cluster mode): API on ${cluster.apiUrl}/v1 — ${cluster.specs.length} services, NATS ${natsUrl}, Redis ${redisUrl}\n\n`);

/** Waits until something accepts TCP connections at the URL's host and port (at most 15 s). */
async function waitForPort(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''), () => {
        socket.end();
        resolve(true);
      }).once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing answers at ${url}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await cluster.stop();
  for (const s of servers) s.kill('SIGTERM');
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
