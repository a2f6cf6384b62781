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
import { createSecretKey, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { webhookBody } from '@wirehook/core';
import type { UndiciPool } from '../http/undici.ts';
import { BARE_PIPELINE_SCHEMA } from '../setup/bare-schema.ts';
import {
  type Answer,
  durabilityOf,
  endWithHarness,
  endpointPool,
  type FloorProcessOptions,
  groupCommit,
  messageInput,
  notFound,
  serveApi,
  type FloorDelivery,
  floorSender,
} from './floor-parts.ts';

interface Endpoint {
  id: string;
  url: string;
  path: string;
  key: KeyObject;
  pool: UndiciPool | undefined;
  removed: boolean;
}

interface Delivery extends FloorDelivery {
  endpoint: Endpoint;
}

const options = JSON.parse(process.argv[2] ?? '{}') as FloorProcessOptions;
const file = join(options.dataDir, 'floor.sqlite');
const db = new DatabaseSync(file);
db.exec(BARE_PIPELINE_SCHEMA);
const insertMessage = db.prepare('INSERT INTO messages (id, payload, created_at) VALUES (?, ?, ?)');
const insertDelivery = db.prepare("INSERT INTO deliveries (id, message_id, endpoint_id, status, next_attempt_at) VALUES (?, ?, ?, 'pending', ?)");
const write = groupCommit(db, file);

/** Key hashes, each with its consumers by external id: a key is registered by its first consumer. */
const keys = new Map<string, Map<string, Endpoint[]>>();
const consumersById = new Map<string, Endpoint[]>();
const endpoints = new Map<string, Endpoint>();

const enqueue = floorSender<Delivery>(db, write, options.inFlight, ({ endpoint }) => {
  if (endpoint.removed) return null;
  endpoint.pool ??= endpointPool(endpoint.url, options);
  return { pool: endpoint.pool, path: endpoint.path, key: endpoint.key };
});

async function createMessage(endpointsOf: Map<string, Endpoint[]>, input: Record<string, unknown>): Promise<Answer> {
  const fields = messageInput(input);
  if (Array.isArray(fields)) return fields;
  const consumer = endpointsOf.get(fields.consumer);
  if (!consumer) return notFound('consumer');
  const messageId = `msg_${randomUUID()}`;
  const createdAt = Date.now();
  const body = webhookBody(fields.eventType, createdAt, fields.payloadJson);
  const deliveries: Delivery[] = consumer.filter((e) => !e.removed).map((endpoint) => ({ id: randomUUID(), messageId, endpoint, body, attempts: 0 }));
  await write(() => {
    insertMessage.run(messageId, fields.payloadJson, createdAt);
    for (const d of deliveries) insertDelivery.run(d.id, messageId, d.endpoint.id, createdAt);
  });
  for (const d of deliveries) enqueue(d);
  return [202, { id: messageId, deliveries: deliveries.length }];
}

function route(req: IncomingMessage, keyHash: string, input: Record<string, unknown>): Promise<Answer> | Answer {
  const path = req.url ?? '';
  if (req.method === 'POST' && path === '/v1/consumers') {
    const id = `con_${randomUUID()}`;
    const consumer: Endpoint[] = [];
    if (!keys.has(keyHash)) keys.set(keyHash, new Map());
    keys.get(keyHash)!.set(String(input['external_id']), consumer);
    consumersById.set(id, consumer);
    return [201, { id }];
  }
  const endpointsOf = keys.get(keyHash);
  if (endpointsOf === undefined) return [401, { error: { code: 'unauthorized', message: 'unknown key' } }];
  if (req.method === 'POST' && path === '/v1/messages') return createMessage(endpointsOf, input);
  if (req.method === 'POST' && path === '/v1/endpoints') {
    const consumer = consumersById.get(String(input['consumer_id']));
    if (!consumer) return notFound('consumer');
    const url = String(input['url']);
    const secret = randomBytes(24);
    const endpoint: Endpoint = { id: `ep_${randomUUID()}`, url, path: new URL(url).pathname, key: createSecretKey(secret), pool: undefined, removed: false };
    consumer.push(endpoint);
    endpoints.set(endpoint.id, endpoint);
    return [201, { id: endpoint.id, secret: `whsec_${secret.toString('base64')}` }];
  }
  const removed = req.method === 'DELETE' && /^\/v1\/endpoints\/([^/]+)$/.exec(path);
  if (removed) {
    const endpoint = endpoints.get(removed[1]!);
    if (!endpoint) return notFound('endpoint');
    endpoint.removed = true;
    void endpoint.pool?.close();
    return [204, undefined];
  }
  return notFound('route');
}

endWithHarness();
serveApi(route, durabilityOf(db));
