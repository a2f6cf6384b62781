// The steps the pipeline floors share (bench/floor/floor-process.ts in one thread,
// bench/floor/threaded-floor-process.ts over three, bench/floor/cluster-floor-process.ts over
// three processes), each in its plainest form: the group commit, the HTTP API's frame, the POST
// with Wirehook's egress defaults, the send-and-record with its retry rule.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { DatabaseSync } from 'node:sqlite';
import { isMainThread } from 'node:worker_threads';
import { ATTEMPT_TIMEOUT_MS, hashApiKey, RESPONSE_HEAD_BYTES, standardWebhookHeaders, type SigningKey } from '@wirehook/core';
// Wirehook's egress defaults: connections per endpoint, idle connection life.
import { EGRESS_CONNECTIONS, EGRESS_KEEP_ALIVE_MAX_MS } from '@wirehook/egress';
import { SQLITE_BUSY_TIMEOUT_MS } from '../../packages/store/src/sqlite/connection.ts';
import { GroupCommit } from '../../packages/store/src/sqlite/group-commit.ts';
import { createPool, type UndiciPool } from '../http/undici.ts';

/** What a floor process is given: where its data is, and the receiver's name, address and CA. */
export interface FloorReceiver {
  /** Host name → address, as Wirehook's DELIVERY_RESOLVE. */
  resolve: Record<string, string>;
  /** The receiver's CA, trusted beside Node's. */
  caPem: string;
}

/** What either floor's scenario passes its processes. */
export interface FloorProcessOptions extends FloorReceiver {
  dataDir: string;
  /** Sends in flight at most (Wirehook's DISPATCH_CONCURRENCY default). */
  inFlight: number;
}

/** An API answer: its status and JSON body (none for a 204). */
export type Answer = [number, unknown];

/** Tries after the first, 1 s apart and doubling; then the delivery fails. */
const RETRIES = 4;

/** What the connection runs with, for the scenario to record (synchronous 2 is FULL). */
export function durabilityOf(db: DatabaseSync): { journalMode: string; synchronous: number } {
  return {
    journalMode: String(db.prepare('PRAGMA journal_mode').get()?.['journal_mode']),
    synchronous: Number(db.prepare('PRAGMA synchronous').get()?.['synchronous']),
  };
}

/**
 * Group commit as Wirehook's store commits (its GroupCommit): every write of one turn of the
 * event loop in one `BEGIN IMMEDIATE` transaction; the WAL fsynced on libuv's pool, each caller
 * answered after it (`durable: false`: after the COMMIT, as Wirehook's claims); another
 * process's write lock waited for a millisecond at a time, not in SQLite's sleeping busy handler.
 * A floor cheaper than Wirehook only by what it leaves out, not by how it commits.
 */
export function groupCommit(db: DatabaseSync, file: string): <T>(run: () => T, options?: { durable?: boolean }) => Promise<T> {
  const commits = new GroupCommit(db, `${file}-wal`, SQLITE_BUSY_TIMEOUT_MS);
  return (run, options) => commits.run(run, options);
}

/**
 * The HTTP API's frame: a bearer key hashed (SHA-256), the body parsed as a JSON object,
 * `route` asked for the answer (whatever it throws is a 500 for that request alone);
 * GET /healthz answers `health` (or what it resolves to, asked at each request). Says its port over IPC once it listens.
 */
export function serveApi(
  route: (req: IncomingMessage, keyHash: string, input: Record<string, unknown>) => Promise<Answer> | Answer,
  health: object | (() => Promise<object>),
): Server {
  const server = createServer((req, res) => {
    const answer = ([status, body]: Answer) => {
      if (body === undefined) return void res.writeHead(status).end();
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
    };
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/healthz') {
        return void Promise.resolve(typeof health === 'function' ? health() : health).then(
          (now) => answer([200, { status: 'ok', ...now }]),
          (err: unknown) => answer([500, { error: { code: 'internal', message: String(err) } }]),
        );
      }
      const auth = req.headers.authorization;
      if (!auth?.startsWith('Bearer ')) return answer([401, { error: { code: 'unauthorized', message: 'a key is required' } }]);
      let input: unknown = {};
      try {
        if (chunks.length > 0) input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return answer([400, { error: { code: 'invalid_json', message: 'the body is not JSON' } }]);
      }
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        return answer([400, { error: { code: 'invalid_json', message: 'the body is not a JSON object' } }]);
      }
      new Promise<Answer>((resolve) => resolve(route(req, hashApiKey(auth.slice(7)), input as Record<string, unknown>))).then(answer, (err: unknown) =>
        answer([500, { error: { code: 'internal', message: String(err) } }]),
      );
    });
  });
  server.keepAliveTimeout = 60_000;
  listenAndSay(server);
  return server;
}

/** Listens on a free loopback port and says it to the harness over IPC. */
export function listenAndSay(server: { listen: (port: number, host: string, ready: () => void) => unknown; address: () => unknown }): void {
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.(typeof address === 'object' && address !== null && 'port' in address ? address.port : 0);
  });
}

/** Ends the process with the harness: its IPC channel closes however the harness exits. */
export function endWithHarness(): void {
  process.on('disconnect', () => process.exit(0));
}

/** The message's fields the API checks, or its 400. */
export function messageInput(input: Record<string, unknown>): { consumer: string; eventType: string; payloadJson: string } | Answer {
  const { consumer, event_type: eventType, payload } = input;
  if (typeof consumer !== 'string' || typeof eventType !== 'string' || typeof payload !== 'object' || payload === null) {
    return [400, { error: { code: 'validation_failed', message: 'consumer, event_type and payload are required' } }];
  }
  return { consumer, eventType, payloadJson: JSON.stringify(payload) };
}

export const notFound = (what: string): Answer => [404, { error: { code: 'not_found', message: `no such ${what}` } }];

/** An endpoint's keep-alive pool with Wirehook's egress defaults, to the address `receiver.resolve` gives its host. */
export function endpointPool(url: string, receiver: FloorReceiver): UndiciPool {
  const { hostname, port } = new URL(url);
  const address = receiver.resolve[hostname] ?? hostname;
  return createPool(
    `https://${address}:${port || 443}`,
    EGRESS_CONNECTIONS,
    { ca: receiver.caPem, servername: hostname },
    { keepAliveMaxTimeout: EGRESS_KEEP_ALIVE_MAX_MS, headersTimeout: ATTEMPT_TIMEOUT_MS, bodyTimeout: ATTEMPT_TIMEOUT_MS },
  );
}

/** What an attempt got: the status (null: no answer) and the answer's first RESPONSE_HEAD_BYTES. */
export interface Sent {
  status: number | null;
  head: string | null;
}

/** Signs and POSTs the webhook `body` of `messageId` (a failure to sign is sendAndRecord's no answer). */
async function postWebhook(pool: UndiciPool, path: string, key: SigningKey, messageId: string, body: string, now: number): Promise<Sent> {
  return postSigned(pool, path, standardWebhookHeaders([key], messageId, now, body), body);
}

/** POSTs a webhook already signed (`headers`). Failures are data: no answer is a null status. */
export async function postSigned(pool: UndiciPool, path: string, headers: Record<string, string>, body: string): Promise<Sent> {
  let status: number | null = null;
  let head: string | null = null;
  try {
    const res = await pool.request({ method: 'POST', path, body, headers });
    status = res.statusCode;
    head = (await res.body.text()).slice(0, RESPONSE_HEAD_BYTES);
  } catch {
    // No answer, or its body cut off: the status (if any) is what counts.
  }
  return { status, head };
}

/** An attempt as a floor records it, with the delivery's status after it and when it is due again. */
export interface FloorAttempt extends Sent {
  id: string;
  at: number;
  outcome: 'delivered' | 'pending' | 'failed';
  next: number;
}

/** The delivery's status after an attempt, and when it is tried again (its `attempts` before this one). */
function afterAttempt(status: number | null, attempts: number, now: number): { outcome: FloorAttempt['outcome']; next: number } {
  const retry = (status === null || status === 429 || status >= 500) && attempts < RETRIES;
  return { outcome: status !== null && status < 300 ? 'delivered' : retry ? 'pending' : 'failed', next: retry ? now + 1_000 * 2 ** attempts : now };
}

/**
 * The floors' two writes after a send, as statements on `db` (run inside a group commit's
 * write): an attempt with its delivery's new status, and a delivery failed unsent.
 */
export function recordStatements(db: DatabaseSync): {
  record: (deliveryId: string, attempt: FloorAttempt) => void;
  fail: (deliveryId: string, at: number) => void;
} {
  const insertAttempt = db.prepare('INSERT INTO attempts (id, delivery_id, at, response_status, response_head) VALUES (?, ?, ?, ?, ?)');
  const setStatus = db.prepare('UPDATE deliveries SET status = ?, next_attempt_at = ?, lease_until = NULL WHERE id = ?');
  return {
    record: (deliveryId, { id, at, status, head, outcome, next }) => {
      insertAttempt.run(id, deliveryId, at, status, head);
      setStatus.run(outcome, next, deliveryId);
    },
    fail: (deliveryId, at) => void setStatus.run('failed', at, deliveryId),
  };
}

/**
 * Sends at most `limit` at once, the rest in order behind them: `send` is called for each
 * in turn, and another starts as one ends.
 */
function sendQueue<T>(limit: number, send: (item: T) => Promise<void>): (item: T) => void {
  const waiting: T[] = [];
  let sending = 0;
  const pump = () => {
    while (sending < limit && waiting.length > 0) {
      sending++;
      void send(waiting.shift()!).finally(() => {
        sending--;
        pump();
      });
    }
  };
  return (item) => {
    waiting.push(item);
    pump();
  };
}

/** A delivery as a floor sends it. */
export interface FloorDelivery {
  id: string;
  messageId: string;
  /** The webhook's body, signed at each send. */
  body: string;
  /** Attempts made so far. */
  attempts: number;
}

/** Where a delivery goes: its endpoint's pool, path and signing key; null when the endpoint is gone (it fails unsent). */
type FloorTarget = { pool: UndiciPool; path: string; key: SigningKey } | null;

/**
 * A floor that cannot go on (a write that failed: a delivery recorded wrong, though its receiver
 * may have counted it; a thread gone): `why` is said and the process ends, so the bench sees the
 * floor gone (measureFloor) instead of a run that passed with its store wrong.
 */
export function endFloor(why: string): void {
  // On a worker thread, thrown outside any promise (an unhandled rejection may only warn, by the
  // flags the floor was given): its owner's 'error' listener says why and ends the process (a
  // worker's console.error could be lost with the thread).
  if (!isMainThread) {
    queueMicrotask(() => {
      throw new Error(`the floor ends: ${why}`);
    });
    return;
  }
  console.error(`the floor ends: ${why}`);
  process.exit(70);
}

/** A floor's write that failed: the floor ends (endFloor). */
export function failed(err: unknown): void {
  endFloor(`a write failed: ${err instanceof Error ? err.message : String(err)}`);
}

/** How a floor sends a delivery and writes what came of it: in its own thread (floorSender), or across threads (the threaded floor). */
export interface FloorSteps<D extends FloorDelivery, T> {
  /** Where `delivery` goes; null when its endpoint is gone. */
  target(delivery: D): T | null;
  post(target: T, delivery: D, now: number): Promise<Sent>;
  /** The attempt and the delivery's new status, in one durable write. */
  record(delivery: D, attempt: FloorAttempt): Promise<void>;
  /** The delivery failed unsent. */
  fail(delivery: D, now: number): Promise<void>;
}

/**
 * The floors' send and record: at most `inFlight` POSTs at once (a slot is the POST's), the rest
 * in order behind them; each attempt written with the delivery's status; a failure tried again
 * as afterAttempt says. @returns the queue a delivery joins to be sent.
 */
export function sendAndRecord<D extends FloorDelivery, T>(inFlight: number, steps: FloorSteps<D, T>): (delivery: D) => void {
  const record = async (delivery: D, { status, head }: Sent, now: number) => {
    const { outcome, next } = afterAttempt(status, delivery.attempts, now);
    await steps.record(delivery, { id: randomUUID(), at: now, status, head, outcome, next });
    if (outcome === 'pending') {
      delivery.attempts++;
      setTimeout(() => enqueue(delivery), next - now);
    }
  };
  const enqueue = sendQueue(inFlight, async (delivery: D) => {
    const now = Date.now();
    const to = steps.target(delivery);
    if (to === null) {
      steps.fail(delivery, now).catch(failed);
      return;
    }
    // Failures are data: a POST that could not be made (signed, crossed to its thread) is no answer,
    // whether its step threw or rejected.
    const sent = await new Promise<Sent>((resolve) => resolve(steps.post(to, delivery, now))).catch((): Sent => ({ status: null, head: null }));
    record(delivery, sent, now).catch(failed);
  });
  return enqueue;
}

/** sendAndRecord in one thread: the POST from `target`'s pool, the writes on `db` by `write` (its group commit). */
export function floorSender<D extends FloorDelivery>(
  db: DatabaseSync,
  write: ReturnType<typeof groupCommit>,
  inFlight: number,
  target: (delivery: D) => FloorTarget,
): (delivery: D) => void {
  const statements = recordStatements(db);
  return sendAndRecord<D, NonNullable<FloorTarget>>(inFlight, {
    target,
    post: (to, delivery, now) => postWebhook(to.pool, to.path, to.key, delivery.messageId, delivery.body, now),
    record: (delivery, attempt) => write(() => statements.record(delivery.id, attempt)),
    fail: (delivery, now) => write(() => statements.fail(delivery.id, now)),
  });
}
