// The pipeline floor (issue 46): a bare durable webhook pipeline in one process and one
// thread, so that `pnpm bench` can set Wirehook's CPU a delivery against it in the same run.
// It does each step Wirehook does for a delivery, each in its plainest form:
//
//   accept  POST /v1/messages: a bearer key hashed (SHA-256) and looked up, the JSON parsed,
//           three fields checked, the payload re-serialised (as intake stores it);
//   store   the message and its delivery in SQLite (WAL, synchronous = FULL: the 202 is sent
//           after its fsync), the writes of one event-loop turn in one transaction;
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
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ATTEMPT_TIMEOUT_MS, hashApiKey, RESPONSE_HEAD_BYTES, standardWebhookHeaders, webhookBody } from '@wirehook/core';
// Wirehook's egress defaults: connections per endpoint, idle connection life.
import { EGRESS_CONNECTIONS, EGRESS_KEEP_ALIVE_MAX_MS } from '@wirehook/egress';
import { createPool, type UndiciPool } from '../http/undici.ts';
import { BARE_PIPELINE_SCHEMA } from '../setup/bare-schema.ts';

/** What the floor scenario passes. */
export interface FloorOptions {
  dataDir: string;
  /** Host name → address, as Wirehook's DELIVERY_RESOLVE. */
  resolve: Record<string, string>;
  /** The receiver's CA, trusted beside Node's. */
  caPem: string;
  /** Sends in flight at most (Wirehook's DISPATCH_CONCURRENCY default). */
  inFlight: number;
}

interface Endpoint {
  id: string;
  origin: string;
  path: string;
  key: KeyObject;
  pool: UndiciPool | undefined;
  removed: boolean;
}

interface Delivery {
  id: string;
  messageId: string;
  endpoint: Endpoint;
  body: string;
  attempts: number;
}

/** Tries after the first, 1 s apart and doubling; then the delivery fails. */
const RETRIES = 4;

const options = JSON.parse(process.argv[2] ?? '{}') as FloorOptions;
const db = new DatabaseSync(join(options.dataDir, 'floor.sqlite'));
db.exec(BARE_PIPELINE_SCHEMA);
const insertMessage = db.prepare('INSERT INTO messages (id, payload, created_at) VALUES (?, ?, ?)');
const insertDelivery = db.prepare("INSERT INTO deliveries (id, message_id, endpoint_id, status, next_attempt_at) VALUES (?, ?, ?, 'pending', ?)");
const insertAttempt = db.prepare('INSERT INTO attempts (id, delivery_id, at, response_status, response_head) VALUES (?, ?, ?, ?, ?)');
const setStatus = db.prepare('UPDATE deliveries SET status = ?, next_attempt_at = ? WHERE id = ?');
/** What the connection runs with, for the scenario to record: 2 is FULL. */
const durability = {
  journalMode: String(db.prepare('PRAGMA journal_mode').get()?.['journal_mode']),
  synchronous: Number(db.prepare('PRAGMA synchronous').get()?.['synchronous']),
};

// Group commit: every write of one turn of the event loop in one transaction, its callers
// answered after the COMMIT (and so after its fsync).
let pendingWrites: { write: () => void; done: () => void }[] = [];
function write(run: () => void): Promise<void> {
  return new Promise((done) => {
    if (pendingWrites.length === 0) setImmediate(commit);
    pendingWrites.push({ write: run, done });
  });
}
function commit(): void {
  const batch = pendingWrites;
  pendingWrites = [];
  db.exec('BEGIN');
  for (const w of batch) w.write();
  db.exec('COMMIT');
  for (const w of batch) w.done();
}

/** Key hashes, each with its consumers by external id: a key is registered by its first consumer. */
const keys = new Map<string, Map<string, Endpoint[]>>();
const consumersById = new Map<string, Endpoint[]>();
const endpoints = new Map<string, Endpoint>();

function poolOf(endpoint: Endpoint): UndiciPool {
  if (endpoint.pool === undefined) {
    const url = new URL(endpoint.origin);
    const address = options.resolve[url.hostname] ?? url.hostname;
    endpoint.pool = createPool(
      `https://${address}:${url.port || 443}`,
      EGRESS_CONNECTIONS,
      { ca: options.caPem, servername: url.hostname },
      { keepAliveMaxTimeout: EGRESS_KEEP_ALIVE_MAX_MS, headersTimeout: ATTEMPT_TIMEOUT_MS, bodyTimeout: ATTEMPT_TIMEOUT_MS },
    );
  }
  return endpoint.pool;
}

// Sends: at most `inFlight` at once, the rest in order behind them.
const waiting: Delivery[] = [];
let sending = 0;
function pump(): void {
  while (sending < options.inFlight && waiting.length > 0) void send(waiting.shift()!);
}
function enqueue(delivery: Delivery): void {
  waiting.push(delivery);
  pump();
}
async function send(delivery: Delivery): Promise<void> {
  const now = Date.now();
  if (delivery.endpoint.removed) {
    await write(() => setStatus.run('failed', now, delivery.id));
    return;
  }
  sending++;
  let status: number | null = null;
  let head: string | null = null;
  try {
    const res = await poolOf(delivery.endpoint).request({
      method: 'POST',
      path: delivery.endpoint.path,
      body: delivery.body,
      headers: standardWebhookHeaders([delivery.endpoint.key], delivery.messageId, now, delivery.body),
    });
    status = res.statusCode;
    head = (await res.body.text()).slice(0, RESPONSE_HEAD_BYTES);
  } catch {
    // No answer, or its body cut off: the status (if any) is what counts.
  } finally {
    sending--;
  }
  const retry = (status === null || status === 429 || status >= 500) && delivery.attempts < RETRIES;
  const next = retry ? now + 1_000 * 2 ** delivery.attempts : now;
  const outcome = status !== null && status < 300 ? 'delivered' : retry ? 'pending' : 'failed';
  await write(() => {
    insertAttempt.run(randomUUID(), delivery.id, now, status, head);
    setStatus.run(outcome, next, delivery.id);
  });
  if (outcome === 'pending') {
    delivery.attempts++;
    setTimeout(() => enqueue(delivery), next - now);
  }
  pump();
}

async function createMessage(endpointsOf: Map<string, Endpoint[]>, input: Record<string, unknown>): Promise<[number, unknown]> {
  const { consumer: external, event_type: eventType, payload } = input;
  if (typeof external !== 'string' || typeof eventType !== 'string' || typeof payload !== 'object' || payload === null) {
    return [400, { error: { code: 'validation_failed', message: 'consumer, event_type and payload are required' } }];
  }
  const consumer = endpointsOf.get(external);
  if (!consumer) return [404, { error: { code: 'not_found', message: 'no such consumer' } }];
  const messageId = `msg_${randomUUID()}`;
  const createdAt = Date.now();
  const payloadJson = JSON.stringify(payload);
  const body = webhookBody(eventType, createdAt, payloadJson);
  const deliveries: Delivery[] = consumer.filter((e) => !e.removed).map((endpoint) => ({ id: randomUUID(), messageId, endpoint, body, attempts: 0 }));
  await write(() => {
    insertMessage.run(messageId, payloadJson, createdAt);
    for (const d of deliveries) insertDelivery.run(d.id, messageId, d.endpoint.id, createdAt);
  });
  for (const d of deliveries) enqueue(d);
  return [202, { id: messageId, deliveries: deliveries.length }];
}

const notFound = (what: string): [number, unknown] => [404, { error: { code: 'not_found', message: `no such ${what}` } }];

function route(req: IncomingMessage, keyHash: string, input: Record<string, unknown>): Promise<[number, unknown]> | [number, unknown] {
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
    const url = new URL(String(input['url']));
    const secret = randomBytes(24);
    const endpoint: Endpoint = {
      id: `ep_${randomUUID()}`,
      origin: url.origin,
      path: url.pathname,
      key: createSecretKey(secret),
      pool: undefined,
      removed: false,
    };
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

function answer(res: ServerResponse, [status, body]: [number, unknown]): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/healthz') return answer(res, [200, { status: 'ok', ...durability }]);
    const auth = req.headers.authorization;
    if (!auth?.startsWith('Bearer ')) return answer(res, [401, { error: { code: 'unauthorized', message: 'a key is required' } }]);
    let input: unknown = {};
    try {
      if (chunks.length > 0) input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return answer(res, [400, { error: { code: 'invalid_json', message: 'the body is not JSON' } }]);
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return answer(res, [400, { error: { code: 'invalid_json', message: 'the body is not a JSON object' } }]);
    }
    // Whatever route throws (a bad URL, say), at once or later, is a 500 for this request alone.
    new Promise<[number, unknown]>((resolve) => resolve(route(req, hashApiKey(auth.slice(7)), input as Record<string, unknown>))).then(
      (result) => answer(res, result),
      (err: unknown) => answer(res, [500, { error: { code: 'internal', message: String(err) } }]),
    );
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.(typeof address === 'object' && address ? address.port : 0);
});
// Ends with the harness: its IPC channel closes when the harness exits, however it exits.
process.on('disconnect', () => process.exit(0));
