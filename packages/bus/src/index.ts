export * from './bus.ts';
export * from './memory-bus.ts';
export * from './nats/nats-bus.ts';
export { MAX_BATCH_MESSAGES, PublishQueueFullError } from './nats/publish-batcher.ts';
export * from './nats/streams.ts';
export type { NatsBusLogger } from './nats/pull-worker.ts';
export * from './subjects.ts';
export { type NatsAuth, NatsConnectRefusedError, type NatsTls } from './nats/nats-auth.ts';
/** nats.js's nkey helpers (make a user nkey: `nkeys.createUser()`), for tools and tests outside this package. */
export { nkeys } from '@nats-io/transport-node';
