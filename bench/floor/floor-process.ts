// The pipeline floor (issue 46): the least a durable webhook service does per delivery, in
// one process and one thread, so that `pnpm bench` can set Wirehook's CPU a delivery against
// it in the same run. It does the work Wirehook does and nothing around it:
//
//   accept  POST /v1/messages (JSON parsed, three fields checked), a bearer key required;
//   store   the message and its delivery in SQLite (WAL, synchronous = FULL: the 202 is sent
//           after its fsync), the writes of one event-loop turn in one transaction;
//   sign    the Standard Webhooks envelope and its HMAC-SHA256, as Wirehook signs;
//   POST    it over a keep-alive HTTPS pool (undici, the version Wirehook sends with);
//   record  the attempt and the delivery's status, again one transaction a turn.
//
// The same schema as the store bench's baseline (bench/store-writes.ts): a message row, a
// delivery row with its due index, an attempt row. Left out on purpose, as a floor does: auth
// beyond "a key is given", rate limits, usage, health, retries' policy, observability, and
// recovery at restart (consumers and endpoints live in memory: setup, not the measured path).
// A send that fails is tried again a second later, so the bench's counts still add up.
//
// Forked by the floor scenario (bench/scenarios/floor.ts) with its options as JSON in argv[2];
// says its port over IPC (bench/load/forked-server.ts).
import { createHmac, createSecretKey, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createPool, type UndiciPool } from '../http/undici.ts';

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
  consumerId: string;
  origin: string;
  path: string;
  key: KeyObject;
  removed: boolean;
}

interface Delivery {
  id: string;
  messageId: string;
  endpoint: Endpoint;
  body: string;
  createdAt: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as FloorOptions;
const db = new DatabaseSync(join(options.dataDir, 'floor.sqlite'));
db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
  CREATE TABLE messages (id TEXT PRIMARY KEY, payload TEXT NOT NULL, created_at INTEGER NOT NULL);
  CREATE TABLE deliveries (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, endpoint_id TEXT NOT NULL, status TEXT NOT NULL,
    next_attempt_at INTEGER NOT NULL);
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
  CREATE TABLE attempts (id TEXT PRIMARY KEY, delivery_id TEXT NOT NULL, at INTEGER NOT NULL, response_status INTEGER);`);
const insertMessage = db.prepare('INSERT INTO messages (id, payload, created_at) VALUES (?, ?, ?)');
const insertDelivery = db.prepare("INSERT INTO deliveries (id, message_id, endpoint_id, status, next_attempt_at) VALUES (?, ?, ?, 'pending', ?)");
const insertAttempt = db.prepare('INSERT INTO attempts (id, delivery_id, at, response_status) VALUES (?, ?, ?, ?)');
const markDelivered = db.prepare("UPDATE deliveries SET status = 'delivered' WHERE id = ?");

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

const consumers = new Map<string, { id: string; endpoints: Endpoint[] }>();
const consumersById = new Map<string, { id: string; endpoints: Endpoint[] }>();
const endpoints = new Map<string, Endpoint>();
const pools = new Map<string, UndiciPool>();

function poolFor(origin: string): UndiciPool {
  let pool = pools.get(origin);
  if (!pool) {
    const url = new URL(origin);
    const address = options.resolve[url.hostname] ?? url.hostname;
    pool = createPool(`https://${address}:${url.port || 443}`, options.inFlight, { ca: options.caPem, servername: url.hostname });
    pools.set(origin, pool);
  }
  return pool;
}

// Sends: at most `inFlight` at once, the rest in order behind them.
const waiting: Delivery[] = [];
let sending = 0;
function enqueue(delivery: Delivery): void {
  waiting.push(delivery);
  while (sending < options.inFlight && waiting.length > 0) void send(waiting.shift()!);
}
async function send(delivery: Delivery): Promise<void> {
  sending++;
  let status: number | null = null;
  try {
    if (delivery.endpoint.removed) return;
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', delivery.endpoint.key).update(`${delivery.messageId}.${timestamp}.${delivery.body}`).digest('base64');
    const res = await poolFor(delivery.endpoint.origin).request({
      method: 'POST',
      path: delivery.endpoint.path,
      body: delivery.body,
      headers: {
        'content-type': 'application/json',
        'webhook-id': delivery.messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': `v1,${signature}`,
        'user-agent': 'Wirehook/1',
      },
    });
    await res.body.dump();
    status = res.statusCode;
  } catch {
    // A failed connection: tried again below, as a 5xx is.
  } finally {
    sending--;
  }
  const now = Date.now();
  await write(() => {
    insertAttempt.run(randomUUID(), delivery.id, now, status);
    if (status !== null && status < 300) markDelivered.run(delivery.id);
  });
  if (status === null || status >= 300) setTimeout(() => enqueue(delivery), 1_000);
  while (sending < options.inFlight && waiting.length > 0) void send(waiting.shift()!);
}

async function createMessage(key: string, input: Record<string, unknown>): Promise<[number, unknown]> {
  const { consumer: external, event_type: eventType, payload } = input;
  if (typeof external !== 'string' || typeof eventType !== 'string' || typeof payload !== 'object' || payload === null) {
    return [400, { error: { code: 'validation_failed', message: 'consumer, event_type and payload are required' } }];
  }
  const consumer = consumers.get(`${key} ${external}`);
  if (!consumer) return [404, { error: { code: 'not_found', message: 'no such consumer' } }];
  const messageId = `msg_${randomUUID()}`;
  const createdAt = Date.now();
  const payloadJson = JSON.stringify(payload);
  const body = `{"type":${JSON.stringify(eventType)},"timestamp":"${new Date(createdAt).toISOString()}","data":${payloadJson}}`;
  const deliveries = consumer.endpoints
    .filter((e) => !e.removed)
    .map((endpoint) => ({ id: randomUUID(), messageId, endpoint, body, createdAt }) satisfies Delivery);
  await write(() => {
    insertMessage.run(messageId, payloadJson, createdAt);
    for (const d of deliveries) insertDelivery.run(d.id, messageId, d.endpoint.id, createdAt);
  });
  for (const d of deliveries) enqueue(d);
  return [202, { id: messageId, deliveries: deliveries.length }];
}

function route(req: IncomingMessage, key: string, input: Record<string, unknown>): Promise<[number, unknown]> | [number, unknown] {
  const path = req.url ?? '';
  if (req.method === 'POST' && path === '/v1/messages') return createMessage(key, input);
  if (req.method === 'POST' && path === '/v1/consumers') {
    const consumer = { id: `con_${randomUUID()}`, endpoints: [] };
    consumers.set(`${key} ${String(input['external_id'])}`, consumer);
    consumersById.set(consumer.id, consumer);
    return [201, { id: consumer.id }];
  }
  if (req.method === 'POST' && path === '/v1/endpoints') {
    const consumer = consumersById.get(String(input['consumer_id']));
    if (!consumer) return [404, { error: { code: 'not_found', message: 'no such consumer' } }];
    const url = new URL(String(input['url']));
    const secret = randomBytes(24);
    const endpoint: Endpoint = {
      id: `ep_${randomUUID()}`,
      consumerId: consumer.id,
      origin: url.origin,
      path: url.pathname,
      key: createSecretKey(secret),
      removed: false,
    };
    consumer.endpoints.push(endpoint);
    endpoints.set(endpoint.id, endpoint);
    return [201, { id: endpoint.id, secret: `whsec_${secret.toString('base64')}` }];
  }
  const removed = req.method === 'DELETE' && /^\/v1\/endpoints\/([^/]+)$/.exec(path);
  if (removed) {
    const endpoint = endpoints.get(removed[1]!);
    if (!endpoint) return [404, { error: { code: 'not_found', message: 'no such endpoint' } }];
    endpoint.removed = true;
    return [204, undefined];
  }
  if (req.method === 'GET' && path === '/healthz') return [200, { status: 'ok' }];
  return [404, { error: { code: 'not_found', message: 'no such route' } }];
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
    const auth = req.headers.authorization;
    if (req.url !== '/healthz' && !auth?.startsWith('Bearer ')) return answer(res, [401, { error: { code: 'unauthorized', message: 'a key is required' } }]);
    let input: Record<string, unknown> = {};
    try {
      if (chunks.length > 0) input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return answer(res, [400, { error: { code: 'invalid_json', message: 'the body is not JSON' } }]);
    }
    void Promise.resolve(route(req, auth?.slice(7) ?? '', input)).then(
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
