export * from './api-client.ts';
export * from './eventually.ts';
export * from './receiver/test-ca.ts';
export * from './receiver/test-receiver.ts';
export * from './receiver/verify-webhook.ts';
