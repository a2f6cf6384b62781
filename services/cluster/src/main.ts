// `./dev start --cluster`: every Wirehook service as its own process, like the Helm chart
// deploys them, against nats-server (JetStream) and redis-server started here when
// NATS_URL / REDIS_URL are not given. Without MONGODB_URL the services share the SQLite
// file in DATA_DIR. Ctrl-C stops everything. Whatever goes wrong is said in one line naming
// what to change, and nothing started here is left running.
import { readLauncherConfig } from './launcher-config.ts';
import { ClusterLauncher, say, withoutPassword } from './launcher.ts';
import { startServers } from './launcher-servers.ts';

const { config, problems } = readLauncherConfig(process.env);
if (problems) {
  for (const line of problems) say(line);
  process.exit(1);
}
const launcher = new ClusterLauncher(config);
launcher.prepareDataDir();
launcher.handleSignals();
await launcher.claimDataDir();
const urls = await startServers(launcher);
const cluster = await launcher.startServices(urls);
if (!launcher.stopping) {
  process.stderr.write(
    `\nWirehook (cluster mode): API on ${cluster.apiUrl}/v1 — ${cluster.specs.length} services, ` +
      `NATS ${withoutPassword(urls.natsUrl)}, Redis ${withoutPassword(urls.redisUrl)}\n\n`,
  );
}
