// Client choice: the v3 modular NATS.js client (`@nats-io/transport-node` for the TCP
// connection, `@nats-io/jetstream` for streams and consumers), not the v2 `nats` package the
// design card names. v3 is the maintainers' line: the nats-io/nats.js repository now hosts
// it (the v2 code was moved out to nats.node), JetStream fixes and features land there
// first, it is strictly semver'd per module, and its pull consumers (`fetch` with idle
// heartbeats, re-pulling after a reconnect) are what this adapter is built on. It speaks to
// nats-server 2.9 (Debian's) as well as current servers.
import { randomUUID } from 'node:crypto';
import { connect, errors as natsErrors, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import {
  type Bus,
  type BusMessage,
  type ConsumeOptions,
  type HandleResult,
  NoResponderError,
  type PublishOptions,
  RequestTimeoutError,
  type Subscription,
} from '../bus.ts';
import { tracePublish } from '../bus-tracing.ts';
import { clientCertificateRefusal } from './client-cert-probe.ts';
import { natsAuthOptions, type NatsAuth, type NatsTls, redactNatsUrl, refusal } from './nats-auth.ts';
import { PublishBatcher } from './publish-batcher.ts';
import { PullWorker, type NatsBusLogger } from './pull-worker.ts';
import { applyStreams, DEFAULT_NATS_PREFIX, DEFAULT_STREAM_SETTINGS, natsStreams, type StreamLogger, type StreamSettings, type StreamSpec } from './streams.ts';

export interface NatsBusOptions {
  /** NATS server URL(s), e.g. `nats://nats:4222`. User info in them is ignored (nats.js drops it): pass it as `auth`. */
  servers: string | string[];
  /** Connection name shown by the server's monitoring (the service's name). */
  name: string;
  /** How to authenticate (plain data; the authenticator is built here); default none. */
  auth?: NatsAuth;
  /** TLS towards the server (CA, client certificate); a `tls://` URL turns TLS on by itself. */
  tls?: NatsTls;
  /** NATS_PREFIX: the first part of every stream, subject and consumer name; default `wirehook`. Ignored with `streams`. */
  prefix?: string;
  /** The topology to declare and use; default `natsStreams(prefix)`. */
  streams?: readonly StreamSpec[];
  /** Replicas, storage and age limit of the streams (NATS_STREAM_*); default one file replica, no age limit. */
  streamSettings?: StreamSettings;
  /** Where what an existing stream keeps against `streamSettings` is said (a replica count, its storage). */
  streamLogger?: StreamLogger;
  /** How long a publish keeps retrying (e.g. through a reconnect) before it rejects; default 10 000. */
  publishTimeoutMs?: number;
  /** Pause between reconnect attempts; default 1 000. Reconnection is retried forever. */
  reconnectWaitMs?: number;
  /** How long one pull request waits on the server; default 10 000 (at least 1 000). */
  pullExpiresMs?: number;
  /** Redelivery delay after a handler throws; default 1 000. */
  retryAfterThrowMs?: number;
  logger?: NatsBusLogger;
}

const PUBLISH_ATTEMPT_MS = 2_000;
const DRAIN_TIMEOUT_MS = 5_000;
const JS_API_TIMEOUT_MS = 5_000;

/**
 * How long one publish attempt waits for its acknowledgement with `leftMs` of the publish's
 * time left: half of it at most (a request whose answer is lost, sent as the client
 * reconnected, leaves time for another attempt), PUBLISH_ATTEMPT_MS at most, 100 ms at least.
 */
export function publishAttemptMs(leftMs: number): number {
  return Math.min(PUBLISH_ATTEMPT_MS, Math.max(leftMs / 2, 100));
}

interface Settings {
  /** NATS_PREFIX: request/reply subjects (`wirehook.…` in the Bus) go under it. */
  prefix: string;
  publishTimeoutMs: number;
  pullExpiresMs: number;
  retryAfterThrowMs: number;
  logger: NatsBusLogger | undefined;
}

/**
 * The Bus of cluster mode, on NATS JetStream: one work-queue stream per subject and one
 * durable pull consumer per stream shared by every replica, so N dispatchers share the work
 * and a job is removed once acked. Publishes carry `Nats-Msg-Id` (the `msgId`, or a random
 * one so this adapter's own retries are de-duplicated). On a `batched` stream (dispatch), the
 * publishes without a msgId of one turn, and those made while others await their ack, go
 * together as one JetStream message (PublishBatcher); the PullWorker hands each out on its
 * own. The connection reconnects forever; a publish during an outage retries until
 * `publishTimeoutMs`, then rejects. close() sends what was published before it first.
 */
export class NatsBus implements Bus {
  readonly #nc: NatsConnection;
  readonly #js: JetStreamClient;
  readonly #specs: ReadonlyMap<string, StreamSpec>;
  readonly #settings: Settings;
  readonly #workers = new Set<PullWorker>();
  /** Group publishing, per NATS subject of a batched stream (see PublishBatcher). */
  readonly #batchers = new Map<string, PublishBatcher>();
  #closing: Promise<void> | undefined;
  /** Set once what close() found queued is sent: publishes still retrying then give up. */
  #closed = false;

  private constructor(nc: NatsConnection, specs: readonly StreamSpec[], settings: Settings) {
    this.#nc = nc;
    this.#js = jetstream(nc, { timeout: JS_API_TIMEOUT_MS });
    // Keyed by the Bus's subject (DISPATCH_SUBJECT); the spec names the prefixed NATS subject.
    this.#specs = new Map(specs.map((spec) => [spec.topic ?? spec.subject, spec]));
    this.#settings = settings;
  }

  /**
   * Connects and applies the stream topology (create or update by streamUpdate's rules, so
   * every replica may do it and none undoes what an operator set on the server).
   * @throws NatsConnectRefusedError (one line naming NATS and the URL, never a secret) when
   *   the server refuses the credentials, its certificate is not trusted, or it verifies client
   *   certificates and none is configured: no retry cures it;
   *   another Error when no server answers, or when JetStream refuses the topology.
   */
  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const servers = (Array.isArray(options.servers) ? options.servers : [options.servers]).map(redactNatsUrl);
    const auth = options.auth ?? { kind: 'none' };
    // TLS asked for without a client certificate: see clientCertificateRefusal for why it looks first.
    const tlsAsked = servers.some((url) => url.startsWith('tls://')) || Boolean(options.tls?.caFile);
    if (tlsAsked && !options.tls?.certFile) {
      const refused = await clientCertificateRefusal(servers);
      if (refused) throw refused;
    }
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers,
        name: options.name,
        ...natsAuthOptions(auth, options.tls),
        maxReconnectAttempts: -1,
        reconnectTimeWait: options.reconnectWaitMs ?? 1_000,
        pingInterval: 20_000,
        // No Error (with its stack) made up front for every publish and pull: 10 % of
        // message-intake's CPU in the cluster bench. Errors still say what failed.
        noAsyncTraces: true,
      });
    } catch (err) {
      throw refusal(err, servers.join(','), auth, options.tls) ?? err;
    }
    const streams = options.streams ?? natsStreams(options.prefix ?? DEFAULT_NATS_PREFIX);
    try {
      // A process that only serves and asks requests (the gateway) declares none: it needs no JetStream.
      if (streams.length > 0)
        await applyStreams(
          await jetstreamManager(nc, { timeout: JS_API_TIMEOUT_MS }),
          streams,
          options.streamSettings ?? DEFAULT_STREAM_SETTINGS,
          options.streamLogger,
        );
    } catch (err) {
      await nc.close();
      throw err;
    }
    return new NatsBus(nc, streams, {
      prefix: options.prefix ?? DEFAULT_NATS_PREFIX,
      publishTimeoutMs: options.publishTimeoutMs ?? 10_000,
      pullExpiresMs: Math.max(1_000, options.pullExpiresMs ?? 10_000),
      retryAfterThrowMs: options.retryAfterThrowMs ?? 1_000,
      logger: options.logger,
    });
  }

  /**
   * Resolves once the stream has stored the message (or recognised its `msgId` as a duplicate).
   * @throws Error for an undeclared subject, after `close()`, or when no acknowledgement came
   *   within `publishTimeoutMs` (server unreachable).
   */
  async publish(subject: string, data: Uint8Array, options: PublishOptions = {}): Promise<void> {
    if (this.#closing) throw new Error('bus is closed');
    const spec = this.#specFor(subject);
    const natsSubject = spec.subject;
    // A publish with its own msgId is de-duplicated by that id, so it travels alone.
    if (spec.batched && options.msgId === undefined) {
      const batcher = this.#batcherOf(spec);
      return await tracePublish('nats', natsSubject, options, (headers) => batcher.add(data, headers));
    }
    const msgId = options.msgId ?? randomUUID();
    const deadline = Date.now() + this.#settings.publishTimeoutMs;
    return await tracePublish('nats', natsSubject, { ...options, msgId }, (headers) => this.#publish(natsSubject, data, msgId, headers, deadline));
  }

  #batcherOf(spec: StreamSpec): PublishBatcher {
    let batcher = this.#batchers.get(spec.subject);
    if (batcher === undefined) {
      const { publishTimeoutMs } = this.#settings;
      batcher = new PublishBatcher({
        subject: spec.subject,
        timeoutMs: publishTimeoutMs,
        // A fresh id per message: this adapter's own retries of it are de-duplicated.
        send: (data, headers, deadline) => this.#publish(spec.subject, data, randomUUID(), headers, deadline),
      });
      this.#batchers.set(spec.subject, batcher);
    }
    return batcher;
  }

  async #publish(subject: string, data: Uint8Array, msgID: string, sent: Readonly<Record<string, string>>, deadline: number): Promise<void> {
    const headers = natsHeaders();
    for (const [key, value] of Object.entries(sent)) headers.set(key, value);
    const { publishTimeoutMs } = this.#settings;
    let lastError: unknown;
    for (let attempt = 0; ; attempt++) {
      if (this.#closed) throw new Error('bus is closed');
      const left = deadline - Date.now();
      if (left <= 0) {
        const cause = lastError instanceof Error ? lastError.message : String(lastError);
        throw new Error(`could not publish to ${subject}: no acknowledgement from NATS JetStream within ${publishTimeoutMs} ms (${cause})`, {
          cause: lastError,
        });
      }
      try {
        await this.#js.publish(subject, data, { msgID, headers, timeout: publishAttemptMs(left) });
        return;
      } catch (err) {
        lastError = err;
        // The same msgID makes a retry of a publish whose ack was lost harmless.
        await delay(Math.min(50 * 2 ** attempt, 1_000, Math.max(0, deadline - Date.now())));
      }
    }
  }

  /** @throws Error for an undeclared subject, or after `close()`. */
  consume(subject: string, handler: (message: BusMessage) => Promise<HandleResult>, options: ConsumeOptions): Subscription {
    const spec = this.#specFor(subject);
    if (this.#closing) throw new Error('bus is closed');
    const { pullExpiresMs, retryAfterThrowMs, logger } = this.#settings;
    const worker = new PullWorker({
      js: this.#js,
      spec,
      handler,
      concurrency: options.concurrency,
      pullExpiresMs,
      retryAfterThrowMs,
      isClosed: () => this.#nc.isClosed(),
      logger,
    });
    this.#workers.add(worker);
    return {
      stop: async () => {
        this.#workers.delete(worker);
        await worker.stop();
      },
    };
  }

  /** Core NATS request/reply under NATS_PREFIX (no JetStream: nothing is stored). */
  serve(subject: string, handler: (data: Uint8Array) => Promise<Uint8Array>): Subscription {
    if (this.#closing) throw new Error('bus is closed');
    const { logger } = this.#settings;
    const sub = this.#nc.subscribe(this.#requestSubject(subject), {
      callback: (err, msg) => {
        if (err) return logger?.warn({ err, subject }, 'serving a NATS subject failed');
        handler(msg.data).then(
          (answer) => msg.respond(answer),
          (handlerErr: unknown) => logger?.warn({ err: handlerErr, subject }, 'a request handler threw; no answer sent'),
        );
      },
    });
    return { stop: async () => sub.unsubscribe() };
  }

  async request(subject: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    if (this.#closing) throw new Error('bus is closed');
    const natsSubject = this.#requestSubject(subject);
    try {
      return (await this.#nc.request(natsSubject, data, { timeout: timeoutMs })).data;
    } catch (err) {
      if (err instanceof natsErrors.RequestError && err.isNoResponders()) throw new NoResponderError(natsSubject);
      if (err instanceof natsErrors.TimeoutError) throw new RequestTimeoutError(natsSubject, timeoutMs);
      throw err;
    }
  }

  /** `wirehook.listen.x` → `<prefix>.listen.x`: two installs on one NATS never answer each other. */
  #requestSubject(subject: string): string {
    return subject.startsWith('wirehook.') ? `${this.#settings.prefix}${subject.slice('wirehook'.length)}` : subject;
  }

  /**
   * The shared consumer of `subject` as JetStream counts it (for /metrics): messages waiting
   * to be handed out, handed out and not yet acked, and handed out more than once.
   * @throws when JetStream does not answer, or the subject has no stream here.
   */
  async consumerBacklog(subject: string): Promise<{ pending: number; ackPending: number; redelivered: number }> {
    const spec = this.#specFor(subject);
    const jsm = await jetstreamManager(this.#nc, { timeout: JS_API_TIMEOUT_MS });
    const info = await jsm.consumers.info(spec.stream, spec.consumer);
    return { pending: info.num_pending, ackPending: info.num_ack_pending, redelivered: info.num_redelivered };
  }

  /** Stops every consumer (running handlers finish and ack), then drains the connection. */
  /** A round trip to nats-server (PING/PONG); hangs while it does not answer (the caller bounds it). */
  async ping(): Promise<void> {
    if (this.#nc.isClosed()) throw new Error('the NATS connection is closed');
    await this.#nc.flush();
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    // What was published before close() is sent first (within the drain's bound).
    const batchers = [...this.#batchers.values()];
    await Promise.race([Promise.all(batchers.map((batcher) => batcher.drained())), delay(DRAIN_TIMEOUT_MS, { unref: true })]);
    this.#closed = true;
    await Promise.all([...this.#workers].map((worker) => worker.stop()));
    this.#workers.clear();
    // Draining flushes the last acks; a connection that cannot reach a server is just closed.
    await Promise.race([this.#nc.drain(), delay(DRAIN_TIMEOUT_MS, { unref: true })]).catch(() => undefined);
    if (!this.#nc.isClosed()) await this.#nc.close();
  }

  #specFor(subject: string): StreamSpec {
    const spec = this.#specs.get(subject);
    if (!spec) throw new Error(`no JetStream stream is declared for subject ${subject} (see natsStreams in nats/streams.ts)`);
    return spec;
  }
}

function delay(ms: number, options: { unref?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (options.unref) timer.unref();
  });
}
