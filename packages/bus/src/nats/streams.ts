import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  ReplayPolicy,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { DISPATCH_SUBJECT } from '../subjects.ts';

// The JetStream topology of Wirehook, declared as code in this one module and applied
// idempotently (create or update) by every NatsBus at connect time.

/** One work-queue subject: its stream, and the durable pull consumer all replicas share. */
export interface StreamSpec {
  /** Stream name (upper case by convention). */
  readonly stream: string;
  /** The one NATS subject the stream stores (carries NATS_PREFIX). */
  readonly subject: string;
  /** The Bus's name for it (e.g. DISPATCH_SUBJECT), when it differs from `subject`; default `subject`. */
  readonly topic?: string;
  /** Durable pull consumer shared by every replica of the consuming service: N replicas share the work. */
  readonly consumer: string;
  /** A second publish with the same `Nats-Msg-Id` inside this window is dropped. */
  readonly duplicateWindowMs: number;
  /** Unacknowledged messages are handed out again after this; handlers signal progress well within it. */
  readonly ackWaitMs: number;
  /** Messages handed out and not yet acknowledged, over all replicas. */
  readonly maxAckPending: number;
  /**
   * Publishes made together (in one turn, or while others await their ack) share a JetStream
   * message (see PublishBatcher); each is still handled on its own. For streams whose
   * consumers are idempotent: a batch comes back whole when any of its messages asks to be
   * handed out again.
   */
  readonly batched?: boolean;
}

/**
 * How the operator runs the streams on their NATS (NATS_STREAM_REPLICAS, NATS_STREAM_STORAGE,
 * NATS_STREAM_MAX_AGE_SECONDS, NATS_STREAM_MAX_BYTES): the same for every stream. What an
 * existing stream keeps is decided by {@link streamUpdate}.
 */
export interface StreamSettings {
  /** Replicas of each stream in a NATS cluster (1 for a single server); its consumer has as many. */
  readonly replicas: number;
  /** `memory` for a JetStream without file storage (jobs are lost with the server; the sweeper sends them anyway). */
  readonly storage: 'file' | 'memory';
  /**
   * A job older than this is dropped by JetStream (the store's sweeper still sends its delivery);
   * 0: no limit on a new stream, the server's kept on an existing one.
   */
  readonly maxAgeMs: number;
  /** The most a stream stores; beyond it the oldest jobs are dropped (DiscardPolicy.Old, see streamConfig). */
  readonly maxBytes: number;
}

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;

/** 64 MiB: about 300 000 pending wake-ups of ~200 bytes (id, Nats-Msg-Id, traceparent). */
export const DEFAULT_STREAM_MAX_BYTES = 64 * 1024 * 1024;
/** A day: a wake-up that old has long been found by the due sweep. */
export const DEFAULT_STREAM_MAX_AGE_MS = 24 * 60 * MINUTE_MS;

/** One replica, file storage, bounded by age and size: a single nats-server with a volume. */
export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  replicas: 1,
  storage: 'file',
  maxAgeMs: DEFAULT_STREAM_MAX_AGE_MS,
  maxBytes: DEFAULT_STREAM_MAX_BYTES,
};

/**
 * NATS_PREFIX's default: the names Wirehook has always used (`WIREHOOK_DISPATCH`,
 * `wirehook.dispatch`, `wirehook-dispatchers`), so an existing install keeps its stream.
 */
export const DEFAULT_NATS_PREFIX = 'wirehook';

/**
 * What NATS_PREFIX may be: lower case (stream names are its upper case, so `a` and `A` would
 * share a stream under two subjects), digits, `-` and `_`, at most 32 characters; valid in a
 * subject token, a stream, consumer and KV bucket name alike.
 */
export const NATS_PREFIX_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** The dispatch stream under `prefix`: stream `<PREFIX>_DISPATCH`, subject `<prefix>.dispatch`, consumer `<prefix>-dispatchers`. */
export function dispatchStream(prefix: string = DEFAULT_NATS_PREFIX): StreamSpec {
  if (!NATS_PREFIX_PATTERN.test(prefix)) {
    throw new Error(`NATS_PREFIX ${JSON.stringify(prefix)} must be lower-case letters, digits, - and _ (at most 32, starting with a letter or digit)`);
  }
  return {
    stream: `${prefix.toUpperCase()}_DISPATCH`,
    subject: `${prefix}.dispatch`,
    topic: DISPATCH_SUBJECT,
    consumer: `${prefix}-dispatchers`,
    duplicateWindowMs: 2 * MINUTE_MS,
    // Longer than the 15 s send timeout, so a send in progress is never handed out twice.
    ackWaitMs: 60 * SECOND_MS,
    maxAckPending: 10_000,
    // A wake-up is a hint and a claim takes a delivery once, however often it is woken.
    batched: true,
  };
}

/** Dispatch jobs: "delivery X may be due", consumed by the dispatchers (under the default prefix). */
export const DISPATCH_STREAM: StreamSpec = dispatchStream(DEFAULT_NATS_PREFIX);

/** Every stream Wirehook declares, under `prefix` (NATS_PREFIX). */
export function natsStreams(prefix: string = DEFAULT_NATS_PREFIX): readonly StreamSpec[] {
  return [dispatchStream(prefix)];
}

/** Every stream Wirehook declares under the default prefix. */
export const STREAMS: readonly StreamSpec[] = natsStreams(DEFAULT_NATS_PREFIX);

const nanos = (ms: number): number => ms * 1_000_000;

/** The stream's JetStream configuration as declared: work-queue retention (a message is removed once acked), `settings` for the rest. */
export function streamConfig(spec: StreamSpec, settings: StreamSettings = DEFAULT_STREAM_SETTINGS): StreamDeclared {
  return {
    name: spec.stream,
    subjects: [spec.subject],
    retention: RetentionPolicy.Workqueue,
    storage: settings.storage === 'memory' ? StorageType.Memory : StorageType.File,
    // Bounded (max_bytes, max_age), and when full the OLDEST jobs go, never a publish refused.
    // The store is the truth and a job only says "delivery X may be due": a dropped job costs
    // that delivery a delay until the next due sweep (SWEEP_INTERVAL_MS, 1 s by default), which
    // finds it in the store and publishes it again. DiscardPolicy.New would instead refuse new
    // publishes while full: message-intake's wake-ups and the sweep itself would retry for
    // their publish timeout (10 s each) against a NATS that cannot take them, and the newest
    // messages, the ones a live sender waits for, would wait longest.
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(spec.duplicateWindowMs),
    num_replicas: settings.replicas,
    max_age: nanos(settings.maxAgeMs),
    max_msgs: -1,
    max_bytes: settings.maxBytes,
  };
}

/** A stream configuration as this module declares it (every field it sets). */
export type StreamDeclared = Partial<StreamConfig> & Pick<StreamConfig, 'name' | 'storage' | 'num_replicas' | 'max_age'>;

/** The shared durable pull consumer: explicit acks, redelivered forever (the store decides what is done); as many replicas as its stream. */
export function consumerConfig(spec: StreamSpec, streamReplicas: number): Partial<ConsumerConfig> {
  return {
    durable_name: spec.consumer,
    filter_subject: spec.subject,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    ack_wait: nanos(spec.ackWaitMs),
    max_deliver: -1,
    max_ack_pending: spec.maxAckPending,
    num_replicas: streamReplicas,
  };
}

/** Something {@link streamUpdate} decided that the operator should hear of. */
export interface StreamNote {
  level: 'info' | 'warn';
  message: string;
}

/**
 * What to send for a stream that exists, from the declared configuration and the server's.
 * The rules, so a pod's start never undoes what an operator did on the server:
 * - `num_replicas`: never lowered. The higher of the two (an operator's R3 stays R3 when
 *   NATS_STREAM_REPLICAS says 1; noted at info); raised when the configuration asks for more.
 * - `storage`: never changed (JetStream refuses to): the server's is kept, and a difference
 *   is a warning naming both (to move, the operator recreates the stream).
 * - `max_age`: the configured one when NATS_STREAM_MAX_AGE_SECONDS is set (non-zero), raised
 *   or lowered alike (it bounds the stream, not its safety: the store keeps every delivery);
 *   when it is 0 (unset) the server's is kept, so an age set with `nats stream edit` stays.
 * - everything else (subjects, retention, duplicate window, limits): as declared.
 * @returns `config` to send, `changed` (the fields that differ from the server's; none: no
 *   update needed) and `notes` to log.
 */
export function streamUpdate(declared: StreamDeclared, existing: StreamConfig): { config: StreamDeclared; changed: string[]; notes: StreamNote[] } {
  const notes: StreamNote[] = [];
  const name = declared.name;
  const replicas = Math.max(declared.num_replicas, existing.num_replicas);
  if (existing.num_replicas > declared.num_replicas) {
    const declaredReplicas = `NATS_STREAM_REPLICAS=${declared.num_replicas}`;
    notes.push({
      level: 'info',
      message: `stream ${name} keeps its ${existing.num_replicas} replicas (${declaredReplicas}): replicas are never lowered at start`,
    });
  }
  if (existing.storage !== declared.storage) {
    notes.push({
      level: 'warn',
      message:
        `stream ${name} is stored in ${existing.storage}, NATS_STREAM_STORAGE says ${declared.storage}: ` +
        `JetStream cannot change a stream's storage, so ${existing.storage} is kept ` +
        '(to move it, delete the stream while no job is pending and restart)',
    });
  }
  const maxAge = declared.max_age === 0 ? existing.max_age : declared.max_age;
  const config: StreamDeclared = { ...declared, num_replicas: replicas, storage: existing.storage, max_age: maxAge };
  const changed = Object.entries(config)
    .filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(existing[key as keyof StreamConfig]))
    .map(([key]) => key);
  return { config, changed, notes };
}

/** Where applyStreams says what it kept (a pino logger fits). */
export interface StreamLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Creates each stream and its consumer, or updates them by {@link streamUpdate}'s rules when
 * they exist; running it again (another replica, a restart) changes nothing.
 * @throws JetStreamApiError when the server refuses a change (e.g. a stream's retention cannot
 *   change); an Error naming NATS_STREAM_STORAGE when file storage is asked of a JetStream without it.
 */
export async function applyStreams(
  jsm: JetStreamManager,
  specs: readonly StreamSpec[],
  settings: StreamSettings = DEFAULT_STREAM_SETTINGS,
  logger?: StreamLogger,
): Promise<void> {
  for (const spec of specs) {
    const declared = streamConfig(spec, settings);
    const existing = await info(() => jsm.streams.info(spec.stream), JetStreamApiCodes.StreamNotFound);
    let replicas: number;
    if (existing) {
      const update = streamUpdate(declared, existing.config);
      for (const note of update.notes) logger?.[note.level]({ stream: spec.stream }, note.message);
      replicas = update.changed.length > 0 ? (await jsm.streams.update(spec.stream, update.config)).config.num_replicas : existing.config.num_replicas;
    } else {
      replicas = (await addStream(jsm, declared)).config.num_replicas;
    }
    const consumer = consumerConfig(spec, replicas);
    const current = await info(() => jsm.consumers.info(spec.stream, spec.consumer), JetStreamApiCodes.ConsumerNotFound);
    if (current) {
      const { ack_wait, max_deliver, max_ack_pending, num_replicas } = consumer;
      // 0 is "as many as the stream": already following it.
      const followed = current.config.num_replicas === 0 || current.config.num_replicas === num_replicas;
      await jsm.consumers.update(spec.stream, spec.consumer, { ack_wait, max_deliver, max_ack_pending, ...(followed ? {} : { num_replicas }) });
    } else {
      await jsm.consumers.add(spec.stream, consumer);
    }
  }
}

/** nats-server's JSStorageResourcesExceededErr: what a JetStream with `max_file_store: 0` answers a file stream. */
const STORAGE_RESOURCES_EXCEEDED = 10047;

/** Adds a stream; a JetStream without file storage is told apart from other refusals. */
async function addStream(jsm: JetStreamManager, declared: StreamDeclared) {
  try {
    return await jsm.streams.add(declared);
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === STORAGE_RESOURCES_EXCEEDED && declared.storage === StorageType.File) {
      throw new Error(
        `JetStream refused file storage for stream ${declared.name} (${err.message}): a server without file storage needs NATS_STREAM_STORAGE=memory`,
        { cause: err },
      );
    }
    throw err;
  }
}

/** The info, or undefined when the server says it does not exist. */
async function info<T>(get: () => Promise<T>, notFoundCode: number): Promise<T | undefined> {
  try {
    return await get();
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === notFoundCode) return undefined;
    throw err;
  }
}
