// `wirehook listen`: holds GET /v1/listen (a WebSocket) open; each webhook that comes over it is
// POSTed to --forward-to, and the local server's answer goes back as the attempt's response.
import WebSocket from 'ws';
import { type Api, unreachableDetail, upgradeError } from './api.ts';

export interface ListenOptions extends Api {
  forwardTo: string;
  /** Comma-separated event types; default every type. */
  events: string | undefined;
  /** A consumer's id (con_…) or external_id; default `wirehook-listen`. */
  consumer: string | undefined;
  /** Print each whole request (headers and body) as JSON, besides its line. */
  printJson: boolean;
  /** Stops it as Ctrl-C does (a program running it; the CLI itself stops on SIGINT and SIGTERM). */
  signal?: AbortSignal;
  /** How long a connection may go without Wirehook's ping before it is taken for lost (default PING_WATCH_MS). */
  pingWatchMs?: number;
}

/** Bytes of the local response's body sent back: what an attempt keeps of a response. */
const BODY_BYTES = 1024;
/** The local server's time at most when Wirehook names none (an older one): the request frame's `timeout_ms`, the attempt's own. */
const LOCAL_TIMEOUT_MS = 15_000;
const MAX_RECONNECT_MS = 10_000;
/** What the CLI leaves of the attempt's time limit for its answer to travel back to Wirehook. */
const ANSWER_MARGIN_MS = 250;
/**
 * Wirehook pings every 20 s; a connection that hears none for this long is gone without a close
 * (a network path dropped, a laptop's lid shut): cut, and connected again — else the CLI sat
 * "forwarding" while its deliveries failed and its listener was removed.
 */
const PING_WATCH_MS = 50_000;
/** The close of a connection whose API key was revoked or has expired (policy violation): final. */
const KEY_REVOKED_CLOSE = 1008;
/** Answers to a reconnect that are waited out (after being served once): Wirehook or a proxy before it not serving now. */
const PASSING = new Set([502, 503, 504]);

interface RequestFrame {
  type: 'request';
  id: string;
  headers: Record<string, string>;
  body: string;
  /** The attempt's time limit (DELIVERY_TIMEOUT_MS): Wirehook records a timeout past it. Absent from an older Wirehook. */
  timeout_ms?: number;
}

interface ReadyFrame {
  type: 'ready';
  endpoint: { id: string; url: string; event_types: string[] | null };
  consumer: { id: string; external_id: string };
  secret: string;
}

/** Runs until Ctrl-C (exit 0) or a refusal (exit 1). */
export function listen(options: ListenOptions): Promise<number> {
  const query = new URLSearchParams({ forward_to: options.forwardTo });
  if (options.events) query.set('events', options.events);
  if (options.consumer) query.set('consumer', options.consumer);
  const url = `${options.apiUrl.replace(/^http/, 'ws')}/v1/listen?${query}`;
  return new Promise((settle) => {
    let socket: WebSocket | null = null;
    let stopping = false;
    let wasReady = false;
    let retryMs = 500;
    /** The reconnect waiting its turn, if any: one at a time, and none after a stop. */
    let reconnect: NodeJS.Timeout | undefined;
    /** Ends the forwards still waiting for the local server: their answers could no longer go back. */
    const forwarding = new AbortController();
    const done = (code: number) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      settle(code);
    };
    const stop = () => {
      if (stopping) return;
      stopping = true;
      clearTimeout(reconnect);
      forwarding.abort();
      if (socket === null || socket.readyState !== WebSocket.OPEN) return done(0);
      socket.close(1000, 'wirehook listen stopped');
      // The goodbye is answered at once; a Wirehook that went away is not waited for.
      setTimeout(() => done(0), 2_000).unref();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    options.signal?.addEventListener('abort', stop, { once: true });
    const again = (why: string) => {
      if (reconnect !== undefined) return;
      console.error(`${why}; reconnecting in ${retryMs} ms (deliveries meanwhile are retried)`);
      reconnect = setTimeout(() => {
        reconnect = undefined;
        if (!stopping) connect();
      }, retryMs);
      retryMs = Math.min(retryMs * 2, MAX_RECONNECT_MS);
    };

    const connect = () => {
      const ws = new WebSocket(url, { headers: { authorization: `Bearer ${options.apiKey}` } });
      socket = ws;
      let watch: NodeJS.Timeout | undefined;
      const heard = () => {
        clearTimeout(watch);
        watch = setTimeout(() => ws.terminate(), options.pingWatchMs ?? PING_WATCH_MS);
        watch.unref();
      };
      ws.on('open', heard);
      ws.on('ping', heard);
      // An upgrade answered otherwise: what it said decides, not the close that follows.
      let refused = false;
      ws.on('unexpected-response', (_req, res) => {
        refused = true;
        void upgradeError(res).then((problem) => {
          ws.terminate();
          if (stopping) return done(0);
          // Once it has served us, a Wirehook that cannot now (503: stopping, NATS not reached; 502 and
          // 504 from a proxy before it) is a passing state, as a lost connection is; a refusal (401,
          // 403, 404) or a fault (500) is not.
          if (wasReady && PASSING.has(res.statusCode ?? 0)) return again(`Wirehook answered ${problem}`);
          console.error(`wirehook listen: ${problem}`);
          stopping = true;
          done(1);
        });
      });
      ws.on('message', (data) => {
        const frame = JSON.parse(data.toString()) as ReadyFrame | RequestFrame;
        // A reconnect that came through after Ctrl-C: goodbye, not a second life.
        if (stopping) return ws.close(1000, 'wirehook listen stopped');
        if (frame.type === 'ready') {
          wasReady = true;
          retryMs = 500;
          ready(frame, options);
        } else if (frame.type === 'request') {
          void forward(frame, options, forwarding.signal).then((answer) => {
            // Stopped: nothing goes back (a 'stopped' answer is no attempt of the local server's).
            if (ws.readyState === WebSocket.OPEN && !forwarding.signal.aborted) return ws.send(JSON.stringify(answer));
            // Answered after the connection went (a Ctrl-C, a lost connection): Wirehook never hears it.
            if (answer.status !== undefined) console.log('  (not recorded: the connection to Wirehook closed first; it retries the delivery)');
          });
        }
      });
      ws.on('error', (err) => {
        if (!wasReady && !stopping) {
          console.error(`wirehook listen: cannot reach Wirehook at ${options.apiUrl}: ${err.message}`);
          stopping = true;
          done(1);
        }
      });
      ws.on('close', (code, reason) => {
        clearTimeout(watch);
        if (refused) return;
        if (stopping) return done(0);
        if (code === KEY_REVOKED_CLOSE) {
          console.error(`wirehook listen: ${reason.toString() || 'the API key is no longer valid'}`);
          stopping = true;
          return done(1);
        }
        if (!wasReady) return;
        again(`connection to Wirehook lost (${code})`);
      });
    };
    connect();
  });
}

function ready(frame: ReadyFrame, options: ListenOptions): void {
  const events = frame.endpoint.event_types?.join(', ') ?? 'every event type';
  console.log(`Ready: forwarding webhooks of consumer ${frame.consumer.external_id} (${frame.consumer.id}) to ${options.forwardTo} (${events})`);
  console.log(`Listener endpoint ${frame.endpoint.id}; its signing secret is ${frame.secret}`);
  console.log('Ctrl-C to stop.');
}

interface Answer {
  type: 'response';
  id: string;
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  duration_ms: number;
  error?: string;
}

/** POSTs one webhook to --forward-to; prints its line; @returns the answer for Wirehook. `stopped`: the listener stopped (the request is cut short). */
async function forward(frame: RequestFrame, options: ListenOptions, stopped: AbortSignal): Promise<Answer> {
  const start = performance.now();
  // A little less than Wirehook's own wait, which began as it sent the frame: an answer the local
  // server gives in time then reaches Wirehook in time, and a 200 printed is a 200 recorded.
  const limitMs = frame.timeout_ms === undefined ? LOCAL_TIMEOUT_MS : Math.max(1, frame.timeout_ms - ANSWER_MARGIN_MS);
  const { eventType, messageId } = described(frame);
  if (options.printJson) console.log(JSON.stringify({ headers: frame.headers, body: parsed(frame.body) }, null, 2));
  let answer: Answer;
  try {
    const res = await fetch(options.forwardTo, {
      method: 'POST',
      headers: frame.headers,
      body: frame.body,
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(limitMs), stopped]),
    });
    const body = await firstBytes(res, BODY_BYTES);
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      headers[name] = value;
    });
    answer = { type: 'response', id: frame.id, status: res.status, headers, body, duration_ms: Math.round(performance.now() - start) };
    console.log(`→ ${res.status} ${eventType} ${messageId} ${answer.duration_ms} ms`);
  } catch (err) {
    if (stopped.aborted) {
      // Not the local server's fault, and no answer can go back: said so, not as a timeout.
      const error = 'stopped: the listener stopped before your server answered (its endpoint is removed and this delivery fails with it)';
      console.log(`→ stopped ${eventType} ${messageId} (${error.slice('stopped: '.length)})`);
      return { type: 'response', id: frame.id, error, duration_ms: Math.round(performance.now() - start) };
    }
    const error = localError(err, options.forwardTo, limitMs);
    answer = { type: 'response', id: frame.id, error, duration_ms: Math.round(performance.now() - start) };
    console.log(`→ ${error.split(':', 1)[0]} ${eventType} ${messageId} ${answer.duration_ms} ms (${error})`);
  }
  return answer;
}

/**
 * The first `max` bytes of `res`'s body as text; the rest is not read (a local server answering
 * 200 MiB, or a stream that never ends, had been read whole into memory for the 1 KiB kept). A
 * multi-byte character the cut splits is dropped, not shown as U+FFFD (as Wirehook's own sends keep a head).
 */
export async function firstBytes(res: Response, max: number): Promise<string> {
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const head = Buffer.concat(chunks).subarray(0, max);
  // Stream mode holds back an incomplete last character instead of replacing it.
  return new TextDecoder('utf-8').decode(head, { stream: !ended || size > max });
}

/** Why the local server gave no answer, as an attempt's error (`connection: …`, `timeout: …`). */
export function localError(err: unknown, forwardTo: string, limitMs = LOCAL_TIMEOUT_MS): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
    return `timeout: ${forwardTo} gave no response within ${limitMs / 1_000} s`;
  const cause = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.code === 'ENOTFOUND' || cause?.code === 'EAI_AGAIN') return `dns: ${new URL(forwardTo).hostname} not found`;
  return `connection: ${forwardTo} could not be reached (${unreachableDetail(err, forwardTo)})`;
}

function described(frame: RequestFrame): { eventType: string; messageId: string } {
  const body = parsed(frame.body) as { type?: unknown } | null;
  return { eventType: typeof body?.type === 'string' ? body.type : '?', messageId: frame.headers['webhook-id'] ?? '?' };
}

function parsed(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
