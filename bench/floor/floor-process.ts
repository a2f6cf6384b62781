// The pipeline floor (issue 46): a bare durable webhook pipeline in one process and one
// thread, so that `pnpm bench` can set Wirehook's CPU a delivery against it in the same run.
// It does each step Wirehook does for a delivery, each in its plainest form:
//
//   accept  POST /v1/messages: a bearer key hashed (SHA-256) and looked up, the JSON parsed,
//           three fields checked, the payload re-serialised (as intake stores it);
//   store   the message and its delivery in SQLite (WAL), the writes of one event-loop turn in
//           one transaction by Wirehook's GroupCommit: the 202 is sent after the WAL's fsync;
//   sign    the Standard Webhooks envelope and its HMAC-SHA256 with Wirehook's own functions;
//   POST    it over a keep-alive HTTPS pool of the endpoint's own (16 connections, idle ones
//           closed after 4 s, 15 s for an answer: Wirehook's egress defaults), 512 in flight;
//   record  the attempt with the answer's first 1 KB, and the delivery's status, again one
//           transaction a turn; a 5xx, 429 or no answer tried again 1, 2, 4, 8 s later, then
//           failed, as any other answer fails it at once; a deleted endpoint's fail unsent.
//
// The store bench's baseline schema (bench/setup/bare-schema.ts): a message row, a delivery
// row with its due index, an attempt row. Left out: what Wirehook adds around the pipeline —
// tenants, scopes and plans, rate limits, throughput control, endpoint health, usage, the
// indexes of the API's lists, ordered lanes, transformations, the retry schedule, traces and
// metrics, recovery at restart (consumers, endpoints and keys live in memory: setup, not the
// measured path). docs/benchmarks.md lists what else differs in the measurement.
//
// Forked by the floor scenario (bench/scenarios/floor.ts) with its options as JSON in argv[2];
// says its port over IPC (bench/load/forked-server.ts).
import { join } from 'node:path';
import type { UndiciPool } from '../http/undici.ts';
import { durabilityOf, endWithHarness, endpointPool, type FloorProcessOptions, floorSender, serveApi } from './floor-parts.ts';
import { openFloorStore } from './floor-store.ts';
import { type FloorEndpoint, floorRoutes, type RoutedDelivery } from './floor-routes.ts';

interface Endpoint extends FloorEndpoint {
  pool: UndiciPool | undefined;
}

const options = JSON.parse(process.argv[2] ?? '{}') as FloorProcessOptions;
const { db, write, create } = openFloorStore(join(options.dataDir, 'floor.sqlite'));

const enqueue = floorSender<RoutedDelivery<Endpoint>>(db, write, options.inFlight, ({ endpoint }) => {
  if (endpoint.removed) return null;
  endpoint.pool ??= endpointPool(endpoint.url, options);
  return { pool: endpoint.pool, path: endpoint.path, key: endpoint.key };
});

const route = floorRoutes<Endpoint>({
  endpoint: (registered) => ({ ...registered, pool: undefined }),
  write: (message, deliveries) => write(() => create({ ...message, deliveries: deliveries.map((d) => ({ id: d.id, endpointId: d.endpoint.id })) })),
  enqueue,
  // Its sends in flight end first (undici's close); a close that fails leaves nothing to measure wrong.
  removed: (endpoint) => void endpoint.pool?.close().catch(() => {}),
});

endWithHarness();
serveApi(route, durabilityOf(db));
