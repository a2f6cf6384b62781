// The cluster floor (issue 46): the pipeline floor's steps (floor-process.ts) laid over the
// processes and hops that cluster mode's architecture fixes, each hop in its plainest form, so
// that `pnpm bench` can set cluster mode's CPU a delivery against it in the same run:
//
//   gateway     the HTTP API: the key hashed and looked up, the JSON parsed and checked; the
//               sends of one event-loop turn to intake in one unary gRPC call (Wirehook's
//               SendBatch), JSON in the call's bytes; endpoints written to the store;
//   intake      the gRPC server: each message's endpoints matched (from the store, once a
//               consumer), the message and its deliveries written (one transaction a turn, the
//               answer after its fsync), then one JetStream message of the call's delivery ids
//               published (a wake-up: the store is the truth), not waited for;
//   dispatcher  a durable JetStream pull consumer: each wake-up's deliveries claimed with a
//               lease in one transaction (the message and the endpoint read with the claim),
//               the wake-up acked after it; signed and POSTed as the floor does, 512 in flight;
//               the attempt and the status written one transaction a turn; retried as the floor.
//
// All three share one SQLite file in WAL (CLUSTER_FLOOR_SCHEMA, made by the scenario), as
// cluster mode's services share theirs here. Left out, beyond what the floor leaves out: gRPC's
// authentication, protobuf, Redis (rate limits, idempotency, throughput state), traces, metrics,
// a sweeper, more than one dispatcher. docs/benchmarks.md says what it measures.
//
// Forked by the floor scenario with its role in argv[2] (the CPU by part names it) and its
// options as JSON in argv[3]; says its port (HTTP or gRPC) over IPC.
import { createSecretKey, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Client, credentials, Server, ServerCredentials, type ServiceError, status as grpcStatus } from '@grpc/grpc-js';
import { AckPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { webhookBody } from '@wirehook/core';
// Wirehook's own limits for a gateway's calls to intake (a module of constants: no protobuf loaded).
import { DEFAULT_DEADLINE_MS, MAX_BATCH_PAYLOAD_CHARS, MAX_BATCH_SENDS } from '../../packages/rpc/src/call-limits.ts';
import type { UndiciPool } from '../http/undici.ts';
import {
  type Answer,
  durabilityOf,
  endFloor,
  endWithHarness,
  endpointPool,
  groupCommit,
  listenAndSay,
  messageInput,
  notFound,
  serveApi,
  type FloorDelivery,
  floorSender,
} from './floor-parts.ts';
import { CLUSTER_FLOOR_FILE, CLUSTER_FLOOR_ROLES, type ClusterFloorOptions, type ClusterFloorRole } from './cluster-floor-options.ts';

/** One send of a batch, gateway → intake, and its answer. */
interface Send {
  consumerId: string;
  eventType: string;
  payloadJson: string;
}
type Sent = { id: string; deliveries: number } | { error: string };

const STREAM = 'FLOOR_DISPATCH';
const SUBJECT = 'floor.dispatch';
const SEND_BATCH = '/floor.Intake/SendBatch';
/** A claim's lease: long enough for a send's two limits. */
const LEASE_MS = 60_000;
const bytes = (value: Buffer) => value;

const role = process.argv[2] as ClusterFloorRole;
if (!CLUSTER_FLOOR_ROLES.includes(role)) throw new Error(`no such role: ${String(role)}`);
// Ends with the harness, whatever it is doing then (the dispatcher's start waits on NATS).
endWithHarness();
const options = JSON.parse(process.argv[3] ?? '{}') as ClusterFloorOptions;
const file = join(options.dataDir, CLUSTER_FLOOR_FILE);
const db = new DatabaseSync(file);
db.exec('PRAGMA synchronous = FULL');
const write = groupCommit(db, file);

if (role === 'gateway') gateway();
else if (role === 'intake') intake();
else await dispatcher();

function gateway(): void {
  const insertEndpoint = db.prepare('INSERT INTO endpoints (id, consumer_id, url, secret) VALUES (?, ?, ?, ?)');
  const removeEndpoint = db.prepare('UPDATE endpoints SET removed = 1 WHERE id = ?');
  const client = new Client(options.intakeAddress!, credentials.createInsecure());
  /** Key hashes, each with its consumers' ids by external id: a key is registered by its first consumer. */
  const keys = new Map<string, Map<string, string>>();
  const consumers = new Set<string>();

  // A turn's sends in one call, as Wirehook's intake client sends them: a full batch (its
  // MAX_BATCH_SENDS, or MAX_BATCH_PAYLOAD_CHARS of payload) goes at once, the rest at the turn's end.
  let batch: { send: Send; answer: (sent: Sent) => void }[] = [];
  let batchChars = 0;
  const call = () => {
    if (batch.length === 0) return; // a batch that went full left the turn's call nothing
    const calls = batch;
    batch = [];
    batchChars = 0;
    const payload = Buffer.from(JSON.stringify(calls.map((c) => c.send)));
    client.makeUnaryRequest(SEND_BATCH, bytes, bytes, payload, { deadline: Date.now() + DEFAULT_DEADLINE_MS }, (err, reply) => {
      const answers = err ? calls.map(() => ({ error: err.message })) : (JSON.parse(reply!.toString('utf8')) as Sent[]);
      calls.forEach((c, k) => c.answer(answers[k]!));
    });
  };
  const send = (s: Send) =>
    new Promise<Sent>((answer) => {
      if (batch.length > 0 && (batch.length >= MAX_BATCH_SENDS || batchChars + s.payloadJson.length > MAX_BATCH_PAYLOAD_CHARS)) call();
      if (batch.length === 0) setImmediate(call);
      batch.push({ send: s, answer });
      batchChars += s.payloadJson.length;
    });

  const route = async (req: IncomingMessage, keyHash: string, input: Record<string, unknown>): Promise<Answer> => {
    const path = req.url ?? '';
    if (req.method === 'POST' && path === '/v1/consumers') {
      const id = `con_${randomUUID()}`;
      if (!keys.has(keyHash)) keys.set(keyHash, new Map());
      keys.get(keyHash)!.set(String(input['external_id']), id);
      consumers.add(id);
      return [201, { id }];
    }
    const consumersOf = keys.get(keyHash);
    if (consumersOf === undefined) return [401, { error: { code: 'unauthorized', message: 'unknown key' } }];
    if (req.method === 'POST' && path === '/v1/messages') {
      const fields = messageInput(input);
      if (Array.isArray(fields)) return fields;
      const consumerId = consumersOf.get(fields.consumer);
      if (consumerId === undefined) return notFound('consumer');
      const sent = await send({ consumerId, eventType: fields.eventType, payloadJson: fields.payloadJson });
      return 'error' in sent ? [503, { error: { code: 'unavailable', message: sent.error } }] : [202, sent];
    }
    if (req.method === 'POST' && path === '/v1/endpoints') {
      const consumerId = String(input['consumer_id']);
      if (!consumers.has(consumerId)) return notFound('consumer');
      // Only what the dispatcher can send to: a bad URL is this request's 422, not the dispatcher's crash.
      const url = URL.parse(String(input['url']));
      if (url === null || url.protocol !== 'https:' || url.hostname === '') {
        return [422, { error: { code: 'validation_failed', message: 'url must be an https URL with a host' } }];
      }
      const id = `ep_${randomUUID()}`;
      const secret = randomBytes(24);
      await write(() => insertEndpoint.run(id, consumerId, url.href, secret));
      return [201, { id, secret: `whsec_${secret.toString('base64')}` }];
    }
    const removed = req.method === 'DELETE' && /^\/v1\/endpoints\/([^/]+)$/.exec(path);
    if (removed) {
      const changed = await write(() => removeEndpoint.run(removed[1]!).changes);
      return changed === 0 ? notFound('endpoint') : [204, undefined];
    }
    return notFound('route');
  };
  serveApi(route, durabilityOf(db));
}

function intake(): void {
  const endpointsOf = db.prepare('SELECT id FROM endpoints WHERE consumer_id = ? AND removed = 0');
  const insertMessage = db.prepare('INSERT INTO messages (id, payload, created_at, event_type) VALUES (?, ?, ?, ?)');
  const insertDelivery = db.prepare("INSERT INTO deliveries (id, message_id, endpoint_id, status, next_attempt_at) VALUES (?, ?, ?, 'pending', ?)");
  /** Each consumer's endpoints, read once (the bench adds none to a consumer once it sends). */
  const matched = new Map<string, string[]>();
  const js = connect({ servers: options.natsUrl }).then((nc) => jetstream(nc));
  js.catch(() => {}); // each publish says its own failure

  const server = new Server();
  server.addService(
    {
      sendBatch: {
        path: SEND_BATCH,
        requestStream: false,
        responseStream: false,
        requestSerialize: bytes,
        requestDeserialize: bytes,
        responseSerialize: bytes,
        responseDeserialize: bytes,
      },
    },
    {
      sendBatch: (call: { request: Buffer }, callback: (err: Partial<ServiceError> | null, reply?: Buffer) => void) => {
        const sends = JSON.parse(call.request.toString('utf8')) as Send[];
        const createdAt = Date.now();
        const ids: string[] = [];
        const answers: Sent[] = [];
        write(() => {
          // A batch run again (GroupCommit's savepoint round) starts these over.
          ids.length = 0;
          answers.length = 0;
          for (const s of sends) {
            let endpoints = matched.get(s.consumerId);
            if (endpoints === undefined) {
              endpoints = endpointsOf.all(s.consumerId).map((row) => String(row['id']));
              matched.set(s.consumerId, endpoints);
            }
            const messageId = `msg_${randomUUID()}`;
            insertMessage.run(messageId, s.payloadJson, createdAt, s.eventType);
            for (const endpointId of endpoints) {
              const id = randomUUID();
              insertDelivery.run(id, messageId, endpointId, createdAt);
              ids.push(id);
            }
            answers.push({ id: messageId, deliveries: endpoints.length });
          }
        }).then(
          () => {
            callback(null, Buffer.from(JSON.stringify(answers)));
            // A lost wake-up loses its deliveries here (no sweeper): said, so a run that waits for them shows why.
            if (ids.length > 0)
              js.then((client) => client.publish(SUBJECT, JSON.stringify(ids))).catch((err: Error) => console.error(`publish failed: ${err.message}`));
          },
          (err: Error) => callback({ code: grpcStatus.INTERNAL, details: err.message }),
        );
      },
    },
  );
  // grpc-js binds with a callback of its own: adapted to listenAndSay's listen/address.
  let port = 0;
  listenAndSay({
    listen: (_port, host, ready) =>
      server.bindAsync(`${host}:0`, ServerCredentials.createInsecure(), (err, bound) => {
        if (err) throw err;
        port = bound;
        ready();
      }),
    address: () => ({ port }),
  });
}

async function dispatcher(): Promise<void> {
  const claim = db.prepare(
    "UPDATE deliveries SET lease_until = ? WHERE id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until < ?) RETURNING message_id, endpoint_id",
  );
  const messageOf = db.prepare('SELECT payload, created_at, event_type FROM messages WHERE id = ?');
  const endpointOf = db.prepare('SELECT url, secret, removed FROM endpoints WHERE id = ?');

  interface Endpoint {
    path: string;
    key: KeyObject;
    pool: UndiciPool;
  }
  interface Delivery extends FloorDelivery {
    endpointId: string;
    removed: boolean;
  }
  /** Each endpoint's key and pool, made at its first delivery; its row (`removed`) is read at each claim, as Wirehook's claims read it. */
  const endpoints = new Map<string, Endpoint>();

  const enqueue = floorSender<Delivery>(db, write, options.inFlight, (delivery) => (delivery.removed ? null : endpoints.get(delivery.endpointId)!));

  /** Claims a wake-up's deliveries in one transaction: those still pending and not leased, with what their sends need. */
  const claimAll = (ids: string[]) =>
    write(
      () => {
        const now = Date.now();
        const claimed: { delivery: Delivery; url: string; secret: Uint8Array }[] = [];
        for (const id of ids) {
          const row = claim.get(now + LEASE_MS, id, now);
          if (row === undefined) continue;
          const messageId = String(row['message_id']);
          const endpointId = String(row['endpoint_id']);
          const message = messageOf.get(messageId);
          const endpoint = endpointOf.get(endpointId);
          if (message === undefined || endpoint === undefined) {
            // Not the floor's to repair (nothing here deletes either): said, and left leased.
            console.error(`delivery ${id}: its message or endpoint is gone`);
            continue;
          }
          const body = webhookBody(String(message['event_type']), Number(message['created_at']), String(message['payload']));
          const delivery = { id, messageId, endpointId, body, attempts: 0, removed: Number(endpoint['removed']) === 1 };
          claimed.push({ delivery, url: String(endpoint['url']), secret: endpoint['secret'] as Uint8Array });
        }
        return claimed;
      },
      // A lease lost in a crash costs a repeat, not a delivery: no fsync waited for, as Wirehook's claims.
      { durable: false },
    );

  const nc = await connect({ servers: options.natsUrl });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: STREAM, subjects: [SUBJECT], retention: RetentionPolicy.Workqueue, storage: StorageType.File });
  // Redelivered only past a lease (ack_wait in ns), so a slow claim is not claimed twice; a wake-up
  // whose claim keeps failing is given up after five tries.
  await jsm.consumers.add(STREAM, {
    durable_name: 'dispatcher',
    ack_policy: AckPolicy.Explicit,
    max_ack_pending: 1_000,
    ack_wait: 2 * LEASE_MS * 1e6,
    max_deliver: 5,
  });
  const consumer = await jetstream(nc).consumers.get(STREAM, 'dispatcher');
  const wakeUps = await consumer.consume({ max_messages: 64 });
  process.send?.(0); // ready: a dispatcher serves no port (the scenario reads none from it)
  for await (const wakeUp of wakeUps) {
    const ids = wakeUp.json<string[]>();
    // Acked once the claims are committed (not yet on disk, as Wirehook's). The floor has no
    // sweeper, and its one dispatcher is never restarted: deliveries lost after the ack are lost
    // to the run, which waits for them and says so by timing out.
    claimAll(ids)
      .then(
        (claimed) => {
          wakeUp.ack();
          for (const { delivery, url, secret } of claimed) {
            // Each endpoint's key and pool made at its first delivery, off the write lock.
            if (!endpoints.has(delivery.endpointId)) {
              endpoints.set(delivery.endpointId, { path: new URL(url).pathname, key: createSecretKey(secret), pool: endpointPool(url, options) });
            }
            enqueue(delivery);
          }
        },
        (err: Error) => {
          // The claim's transaction failed (the write lock past its wait): the wake-up again, a second later.
          console.error(`claim failed: ${err.message}`);
          wakeUp.nak(1_000);
        },
      )
      // A floor that cannot send what it claimed ends: the bench sees its process gone (measureFloor).
      .catch((err: Error) => endFloor(`the dispatcher cannot send what it claimed: ${err.message}`));
  }
}
