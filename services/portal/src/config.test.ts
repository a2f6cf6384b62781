import { describe, expect, it } from 'vitest';
import { portalConfigSchema } from './config.ts';

const TOKEN = 'x'.repeat(32);

describe('portalConfigSchema', () => {
  it('listens on 8081 by default and calls the services where the gateway does', () => {
    const config = portalConfigSchema.parse({ INTERNAL_AUTH_TOKEN: TOKEN });
    expect(config).toMatchObject({
      PORT: 8081,
      REDIS_URL: 'redis://127.0.0.1:6379',
      INTAKE_GRPC_ADDRESS: '127.0.0.1:50051',
      RECOVERY_GRPC_ADDRESS: '127.0.0.1:50053',
      GRPC_DEADLINE_MS: 5_000,
    });
  });

  it('takes none of what only the gateway reads', () => {
    const config = portalConfigSchema.parse({ INTERNAL_AUTH_TOKEN: TOKEN, PORTAL_PUBLIC_URL: 'https://portal.example.com', IDEMPOTENCY_FRONT: 'off' });
    expect(config).not.toHaveProperty('PORTAL_PUBLIC_URL');
    expect(config).not.toHaveProperty('IDEMPOTENCY_FRONT');
  });

  it.each([
    ['INTERNAL_AUTH_TOKEN', { INTERNAL_AUTH_TOKEN: 'short' }, /at least 32 characters/],
    ['REDIS_URL', { REDIS_URL: 'localhost:6379' }, /must be redis:\/\/host:port/],
    ['INTAKE_GRPC_ADDRESS', { INTAKE_GRPC_ADDRESS: 'http://intake' }, /must be a gRPC target: host:port/],
    ['WIREHOOK_SECRET_KEY', { MONGODB_URL: 'mongodb://db/wirehook' }, /is required with MONGODB_URL/],
  ])('refuses a bad %s, saying what is allowed', (name, env, message) => {
    const parsed = portalConfigSchema.safeParse({ INTERNAL_AUTH_TOKEN: TOKEN, ...env });
    expect(parsed.success).toBe(false);
    const issue = parsed.error!.issues.find((i) => i.path[0] === name);
    expect(issue?.message).toMatch(message);
  });
});
