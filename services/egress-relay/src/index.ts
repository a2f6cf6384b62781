export * from './relay.ts';
export * from './relay-sources.ts';
export * from './grpc-server.ts';
export * from './create-relay.ts';
