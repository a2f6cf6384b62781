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
  /** The one subject the stream stores. */
  readonly subject: string;
  /** Durable pull consumer shared by every replica of the consuming service: N replicas share the work. */
  readonly consumer: string;
  /** A second publish with the same `Nats-Msg-Id` inside this window is dropped. */
  readonly duplicateWindowMs: number;
  /** Unacknowledged messages are handed out again after this; handlers signal progress well within it. */
  readonly ackWaitMs: number;
  /** Messages handed out and not yet acknowledged, over all replicas. */
  readonly maxAckPending: number;
  /** Stream and consumer replicas in a NATS cluster (1 for a single server). */
  readonly replicas: number;
}

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;

/** Dispatch jobs: "delivery X may be due", consumed by the dispatchers. */
export const DISPATCH_STREAM: StreamSpec = {
  stream: 'WIREHOOK_DISPATCH',
  subject: DISPATCH_SUBJECT,
  consumer: 'wirehook-dispatchers',
  duplicateWindowMs: 2 * MINUTE_MS,
  // Longer than the 15 s send timeout, so a send in progress is never handed out twice.
  ackWaitMs: 60 * SECOND_MS,
  maxAckPending: 10_000,
  replicas: 1,
};

/** Every stream Wirehook declares. */
export const STREAMS: readonly StreamSpec[] = [DISPATCH_STREAM];

const nanos = (ms: number): number => ms * 1_000_000;

/** The stream's JetStream configuration: work-queue retention (a message is removed once acked), file storage. */
export function streamConfig(spec: StreamSpec): Partial<StreamConfig> & { name: string } {
  return {
    name: spec.stream,
    subjects: [spec.subject],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(spec.duplicateWindowMs),
    num_replicas: spec.replicas,
    // No age or size limit: a job stays until a consumer acks it.
    max_age: 0,
    max_msgs: -1,
    max_bytes: -1,
  };
}

/** The shared durable pull consumer: explicit acks, redelivered forever (the store decides what is done). */
export function consumerConfig(spec: StreamSpec): Partial<ConsumerConfig> {
  return {
    durable_name: spec.consumer,
    filter_subject: spec.subject,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    ack_wait: nanos(spec.ackWaitMs),
    max_deliver: -1,
    max_ack_pending: spec.maxAckPending,
    num_replicas: spec.replicas,
  };
}

/**
 * Creates each stream and its consumer, or updates them to the declared configuration when
 * they exist; running it again (another replica, a restart) changes nothing.
 * @throws JetStreamApiError when the server refuses a change (e.g. a stream's retention cannot change).
 */
export async function applyStreams(jsm: JetStreamManager, specs: readonly StreamSpec[]): Promise<void> {
  for (const spec of specs) {
    const stream = streamConfig(spec);
    if (await exists(() => jsm.streams.info(spec.stream), JetStreamApiCodes.StreamNotFound)) {
      await jsm.streams.update(spec.stream, stream);
    } else {
      await jsm.streams.add(stream);
    }
    const consumer = consumerConfig(spec);
    if (await exists(() => jsm.consumers.info(spec.stream, spec.consumer), JetStreamApiCodes.ConsumerNotFound)) {
      const { ack_wait, max_deliver, max_ack_pending } = consumer;
      await jsm.consumers.update(spec.stream, spec.consumer, { ack_wait, max_deliver, max_ack_pending });
    } else {
      await jsm.consumers.add(spec.stream, consumer);
    }
  }
}

async function exists(info: () => Promise<unknown>, notFoundCode: number): Promise<boolean> {
  try {
    await info();
    return true;
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === notFoundCode) return false;
    throw err;
  }
}
