import type { BenchContext } from '../context.ts';
import type { ScenarioResult } from '../report/records.ts';
import { e2eRuns } from './e2e.ts';

/**
 * Cluster mode beside embedded mode: the e2e runs again, the same way, against every
 * service as its own process with NATS and Redis (bench/launchers/cluster-launcher.ts).
 * `ctx` is already the cluster: main.ts stops the embedded process and launches it on a
 * fresh DATA_DIR first, so the two share the machine's cores in turn, never at once.
 */
export async function runCluster(ctx: BenchContext): Promise<ScenarioResult> {
  const { runs, warming } = await e2eRuns(ctx, 'cluster');
  return { name: 'cluster', deliveriesPerMessage: 1, description: 'e2e in cluster mode: every service a process, NATS, Redis, one SQLite file', runs, warming };
}
