export * from './api-client.ts';
export * from './eventually.ts';
export * from './receiver/test-ca.ts';
export * from './receiver/test-receiver.ts';
export * from './receiver/verify-webhook.ts';
export * from './servers/nats-server.ts';
export * from './servers/redis-server.ts';
