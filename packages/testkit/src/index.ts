export * from './api-client.ts';
export * from './eventually.ts';
export * from './test-gateway.ts';
