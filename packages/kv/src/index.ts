export * from './kv.ts';
export * from './memory-kv.ts';
export * from './rate-limiter.ts';
export * from './redis-kv.ts';
export { isRedisUrl, parseRedisUrl, type RedisTarget } from './redis-url.ts';
export * from './endpoint-throughput.ts';
