// The bench's webhook receiver: its own process (so its CPU shows apart from Wirehook's),
// forked by the harness with an IPC channel. HTTPS on a loopback address; each endpoint is
// a path /r/<route>. It checks every webhook the cheap way a fast receiver would — one
// HMAC-SHA256 over `id.timestamp.body` compared with the `v1,` signatures, and the
// timestamp within 5 minutes — counts distinct webhook-ids per route, and answers 200, or
// 500 on a failing route (or for an ordering key told to fail); a `capacity` route answers
// like a receiver of fixed capacity (429 above C in flight, else 200 after its service time). An ordered webhook whose
// `webhook-sequence` is below one already delivered for its route and key counts as out of
// order. Accept→receive latency is the receive time minus the body's
// `timestamp` (the message's creation time; both clocks are this machine's).
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Samples } from '../report/stats.ts';
import type { AnswerTimes, GroupStats, HarnessMessage, ReceiverMessage, ReceiverStats, RouteMode, RouteSpec } from './protocol.ts';

interface Route {
  key: KeyObject;
  mode: RouteMode;
  group: Group;
  /** `capacity` mode: most requests in flight before 429, and each one's service time. */
  capacity: number;
  serviceMs: number;
  inFlight: number;
  /** `hang` mode: the requests held open, answered 503 when the route leaves that mode. */
  hung: Set<ServerResponse>;
}

interface Group {
  stats: GroupStats;
  /** Answer times (`capacity` routes only): new webhooks answered 2xx, and 429s. */
  times: AnswerTimes;
}

const TOLERANCE_SECONDS = 5 * 60;
const TIMESTAMP_FIELD = '"timestamp":"';
const ISO_LENGTH = '2026-01-15T12:00:00.000Z'.length;

const routes = new Map<string, Route>();
const groups = new Map<string, Group>();
/** `route id` + ` ` + webhook-id of every delivered request since the last reset. */
const seen = new Set<string>();
const latency = new Samples();
let invalid = 0;
let unknownRoute = 0;
/** Ordering keys answered 500 on every route (the ordered scenario's blocked key). */
let failKeys = new Set<string>();
/** `route id` + ` ` + ordering key → the highest sequence delivered. */
const lastSequence = new Map<string, number>();
let outOfOrder = 0;
let server: Server | undefined;

const nowMs = () => performance.timeOrigin + performance.now();

/**
 * A delivery's accept→receive time: the wall clock now against the message's `created_at`, which
 * Wirehook took from its wall clock. Not from nowMs: the monotonic clock's origin, fixed when this
 * process started, drifts from the wall clock as NTP slews it, and over a long run that put
 * smoke runs' medians below zero (CI, stop 75: a p50 of −0.33 × the baseline's).
 */
const sinceCreated = (body: Buffer, wallAt: number) => wallAt - createdAtOf(body);

function groupNamed(name: string): Group {
  let group = groups.get(name);
  if (group === undefined) {
    group = { stats: emptyStats(), times: { ok: [], refused: [] } };
    groups.set(name, group);
  }
  return group;
}

/** A KeyObject, made once per route: HMAC with a raw Buffer key imports the key on every call (about 5× slower). */
function keyOf(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64'));
}

/** True when one of the `v1,` signatures in `header` is the HMAC of the request. */
function signatureValid(key: KeyObject, id: string, timestamp: string, body: Buffer, header: string): boolean {
  const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
  for (const candidate of header.split(' ')) if (candidate === expected) return true;
  return false;
}

function createdAtOf(body: Buffer): number {
  const at = body.indexOf(TIMESTAMP_FIELD);
  if (at < 0) return Number.NaN;
  const start = at + TIMESTAMP_FIELD.length;
  return Date.parse(body.toString('latin1', start, start + ISO_LENGTH));
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const receivedAt = nowMs();
    const wallAt = Date.now();
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const route = routes.get((req.url ?? '').slice(3)); // "/r/<id>"
    if (route === undefined || !(req.url ?? '').startsWith('/r/')) {
      unknownRoute++;
      res.writeHead(404).end();
      return;
    }
    const id = req.headers['webhook-id'];
    const timestamp = req.headers['webhook-timestamp'];
    const signature = req.headers['webhook-signature'];
    if (
      typeof id !== 'string' ||
      typeof timestamp !== 'string' ||
      typeof signature !== 'string' ||
      Math.abs(Number(timestamp) - wallAt / 1000) > TOLERANCE_SECONDS ||
      !signatureValid(route.key, id, timestamp, body, signature)
    ) {
      invalid++;
      res.writeHead(400).end();
      return;
    }
    const { stats } = route.group;
    // Not answered while the route hangs: the sender's attempt timeout ends it, or the route
    // leaving `hang` (setMode), so that a Wirehook stopped after a scenario does not wait it out.
    if (route.mode === 'hang') {
      route.hung.add(res);
      res.once('close', () => route.hung.delete(res));
      return;
    }
    const orderingKey = req.headers['webhook-ordering-key'];
    if (route.mode === 'fail' || (typeof orderingKey === 'string' && failKeys.has(orderingKey))) {
      stats.failed++;
      res.writeHead(500).end('bench: failing on purpose');
      return;
    }
    if (route.mode === 'capacity') {
      serveWithin(route, `${req.url} ${id}`, wallAt, body, res);
      return;
    }
    const pair = `${req.url} ${id}`;
    if (seen.has(pair)) {
      stats.duplicates++;
    } else {
      seen.add(pair);
      stats.delivered++;
      stats.firstAt ??= receivedAt;
      stats.lastAt = receivedAt;
      latency.push(sinceCreated(body, wallAt));
      if (typeof orderingKey === 'string') checkOrder(`${req.url} ${orderingKey}`, Number(req.headers['webhook-sequence']));
    }
    res.writeHead(200).end();
  });
}

/** A receiver of fixed capacity: 429 above `route.capacity` in flight, else 200 after `route.serviceMs`. */
function serveWithin(route: Route, pair: string, wallAt: number, body: Buffer, res: ServerResponse): void {
  const { stats, times } = route.group;
  if (route.inFlight >= route.capacity) {
    stats.refused++;
    times.refused.push(nowMs());
    res.writeHead(429).end();
    return;
  }
  route.inFlight++;
  setTimeout(() => {
    route.inFlight--;
    const answeredAt = nowMs();
    if (seen.has(pair)) {
      stats.duplicates++;
    } else {
      seen.add(pair);
      stats.delivered++;
      stats.firstAt ??= answeredAt;
      stats.lastAt = answeredAt;
      times.ok.push(answeredAt);
      latency.push(sinceCreated(body, wallAt));
    }
    res.writeHead(200).end();
  }, route.serviceMs);
}

function checkOrder(lane: string, sequence: number): void {
  const last = lastSequence.get(lane) ?? 0;
  if (!(sequence > last)) outOfOrder++;
  else lastSequence.set(lane, sequence);
}

function listen(host: string, port: number, keyPem: string, certPem: string): Promise<void> {
  const https = createServer({ key: keyPem, cert: certPem }, handle);
  // Wirehook keeps its connections; so does a real receiver behind a load balancer.
  https.keepAliveTimeout = 120_000;
  https.headersTimeout = 130_000;
  https.requestTimeout = 0;
  return new Promise((resolve, reject) => {
    https.once('error', reject);
    https.listen(port, host, () => {
      https.off('error', reject);
      server = https;
      resolve();
    });
  });
}

function emptyStats(): GroupStats {
  return { delivered: 0, duplicates: 0, failed: 0, refused: 0, firstAt: null, lastAt: null };
}

function snapshot(withLatency: boolean): ReceiverStats {
  let held = 0;
  for (const route of routes.values()) held += route.hung.size;
  const out: ReceiverStats = { groups: {}, invalid, unknownRoute, outOfOrder, held };
  for (const [name, group] of groups) out.groups[name] = { ...group.stats };
  if (withLatency) out.latencyMs = latency.summary();
  return out;
}

function reset(): void {
  seen.clear();
  invalid = 0;
  unknownRoute = 0;
  latency.clear();
  lastSequence.clear();
  outOfOrder = 0;
  for (const group of groups.values()) {
    group.stats = emptyStats();
    group.times = { ok: [], refused: [] };
  }
}

/** A route's new mode; leaving `hang` answers the requests it held 503 (a failed attempt, not a delivery). */
function setMode(route: Route, mode: RouteMode): void {
  route.mode = mode;
  if (mode === 'hang') return;
  for (const res of route.hung) res.writeHead(503).end();
  route.hung.clear();
}

function addRoutes(specs: RouteSpec[]): void {
  for (const spec of specs)
    routes.set(spec.id, {
      key: keyOf(spec.secret),
      mode: spec.mode,
      group: groupNamed(spec.group),
      capacity: 0,
      serviceMs: 0,
      inFlight: 0,
      hung: new Set(),
    });
}

async function answer(message: HarnessMessage): Promise<ReceiverMessage> {
  const { seq } = message;
  switch (message.type) {
    case 'listen':
      try {
        await listen(message.host, message.port, message.keyPem, message.certPem);
        return { seq, type: 'ok' };
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        return { seq, type: 'error', code: e.code ?? 'ERROR', message: e.message };
      }
    case 'routes':
      addRoutes(message.routes);
      return { seq, type: 'ok' };
    case 'mode':
      for (const id of message.ids) {
        const route = routes.get(id);
        if (route) setMode(route, message.mode);
      }
      return { seq, type: 'ok' };
    case 'failKeys':
      failKeys = new Set(message.keys);
      return { seq, type: 'ok' };
    case 'capacity':
      for (const id of message.ids) {
        const route = routes.get(id);
        if (route) {
          setMode(route, 'capacity');
          Object.assign(route, { capacity: message.capacity, serviceMs: message.serviceMs });
        }
      }
      return { seq, type: 'ok' };
    case 'times': {
      const times = groups.get(message.group)?.times ?? { ok: [], refused: [] };
      return { seq, type: 'times', times };
    }
    case 'stats':
      return { seq, type: 'stats', stats: snapshot(message.latency) };
    case 'reset':
      reset();
      return { seq, type: 'ok' };
  }
}

process.on('message', (message: HarnessMessage) => {
  void answer(message).then((reply) => process.send?.(reply));
});
// The harness going away (even killed) closes the channel: stop with it.
process.on('disconnect', () => {
  server?.closeAllConnections();
  server?.close();
  process.exit(0);
});
