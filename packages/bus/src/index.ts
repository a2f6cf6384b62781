export * from './bus.ts';
export * from './memory-bus.ts';
export * from './nats/nats-bus.ts';
export * from './nats/streams.ts';
export type { NatsBusLogger } from './nats/pull-worker.ts';
export * from './subjects.ts';
