// Configuration the services refuse, each with a message that names the variable.
import type { AddressInfo } from 'node:net';
import { createRegistry, metricsServer } from '@wirehook/platform';
import { describe, expect, it } from 'vitest';
import { dispatcherConfigSchema } from '../../services/dispatcher/src/config.ts';
import { gatewayConfigSchema } from '../../services/gateway/src/config.ts';
import { intakeConfigSchema } from '../../services/message-intake/src/config.ts';

const TOKEN = 'a-shared-secret-of-at-least-32-characters';
const KEY = Buffer.alloc(32, 7).toString('base64');
/** The issues as loadConfig's message lists them: `VARIABLE: problem`, one a line. */
const problems = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  (result.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`).join('\n');

describe('service configuration', () => {
  it.each([
    ['gateway', gatewayConfigSchema],
    ['dispatcher', dispatcherConfigSchema],
  ])('%s: with MONGODB_URL, WIREHOOK_SECRET_KEY is required (each pod would make its own key)', (_name, schema) => {
    const env = { MONGODB_URL: 'mongodb://db:27017/?replicaSet=rs0', INTERNAL_AUTH_TOKEN: TOKEN };
    const refused = schema.safeParse(env);
    expect(refused.success).toBe(false);
    expect(problems(refused)).toMatch(/WIREHOOK_SECRET_KEY[\s\S]*is required with MONGODB_URL/);
    expect(schema.safeParse({ ...env, WIREHOOK_SECRET_KEY: KEY }).success).toBe(true);
    // Without MongoDB (embedded SQLite, one DATA_DIR) the key file is made on first start.
    expect(schema.safeParse({ INTERNAL_AUTH_TOKEN: TOKEN }).success).toBe(true);
  });

  it('a WIREHOOK_SECRET_KEY that is not 32 bytes of base64 is named', () => {
    const refused = dispatcherConfigSchema.safeParse({ WIREHOOK_SECRET_KEY: 'too-short' });
    expect(problems(refused)).toMatch(/WIREHOOK_SECRET_KEY[\s\S]*must be 32 bytes in base64/);
  });

  it.each([
    ['gateway', gatewayConfigSchema],
    ['message-intake', intakeConfigSchema],
  ])('%s: INTERNAL_AUTH_TOKEN is required, at least 32 characters', (_name, schema) => {
    expect(problems(schema.safeParse({}))).toMatch(/INTERNAL_AUTH_TOKEN[\s\S]*is required/);
    expect(problems(schema.safeParse({ INTERNAL_AUTH_TOKEN: 'short' }))).toMatch(/INTERNAL_AUTH_TOKEN[\s\S]*at least 32 characters/);
  });

  it('message-intake binds its gRPC port to loopback unless told otherwise', () => {
    expect(intakeConfigSchema.parse({ INTERNAL_AUTH_TOKEN: TOKEN }).GRPC_HOST).toBe('127.0.0.1');
    expect(intakeConfigSchema.parse({ INTERNAL_AUTH_TOKEN: TOKEN, GRPC_HOST: '0.0.0.0' }).GRPC_HOST).toBe('0.0.0.0');
  });

  it.each([
    ['message-intake', intakeConfigSchema, 'NATS_URL', 'nonsense', /must be a nats:\/\/ or tls:\/\/ URL with a host/],
    ['dispatcher', dispatcherConfigSchema, 'NATS_URL', 'http://127.0.0.1:4222', /must be a nats:\/\/ or tls:\/\/ URL/],
    ['gateway', gatewayConfigSchema, 'REDIS_URL', 'localhost:6379', /must be redis:\/\/host:port, rediss:\/\/host:port, or redis\+sentinel:\/\//],
    ['gateway', gatewayConfigSchema, 'MONGODB_URL', 'postgres://db/x', /must be a mongodb:\/\/ or mongodb\+srv:\/\/ URL/],
    ['dispatcher', dispatcherConfigSchema, 'NATS_STREAM_REPLICAS', '7', /must be a whole number from 1 to 5/],
    ['message-intake', intakeConfigSchema, 'NATS_STREAM_REPLICAS', 'three', /must be a whole number from 1 to 5/],
    ['message-intake', intakeConfigSchema, 'NATS_STREAM_STORAGE', 'disk', /must be file or memory/],
    ['dispatcher', dispatcherConfigSchema, 'NATS_STREAM_MAX_AGE_SECONDS', '60', /must be 0 \(no limit\) or at least 120/],
  ])('%s: %s=%s is refused, naming the variable', (_name, schema, variable, value, message) => {
    const issues = problems(schema.safeParse({ INTERNAL_AUTH_TOKEN: TOKEN, WIREHOOK_SECRET_KEY: KEY, [variable]: value }));
    expect(issues).toMatch(new RegExp(`^${variable}: ${message.source}`, 'm'));
  });

  it('the NATS stream settings default to one file replica, bounded to a day and 64 MiB, under the prefix wirehook', () => {
    expect(intakeConfigSchema.parse({ INTERNAL_AUTH_TOKEN: TOKEN })).toMatchObject({
      NATS_STREAM_REPLICAS: 1,
      NATS_STREAM_STORAGE: 'file',
      NATS_STREAM_MAX_AGE_SECONDS: 86_400,
      NATS_STREAM_MAX_BYTES: 64 * 1024 * 1024,
      NATS_PREFIX: 'wirehook',
    });
    const set = { INTERNAL_AUTH_TOKEN: TOKEN, NATS_STREAM_REPLICAS: '3', NATS_STREAM_STORAGE: 'memory', NATS_STREAM_MAX_AGE_SECONDS: '86400' };
    expect(intakeConfigSchema.parse(set)).toMatchObject({ NATS_STREAM_REPLICAS: 3, NATS_STREAM_STORAGE: 'memory', NATS_STREAM_MAX_AGE_SECONDS: 86_400 });
  });

  it('a METRICS_PORT that is taken fails the start with a message naming it (no unhandled error event)', async () => {
    const first = metricsServer(createRegistry('test'), 0, '127.0.0.1');
    await first.start();
    const port = (first.server.address() as AddressInfo).port;
    try {
      await expect(metricsServer(createRegistry('test'), port, '127.0.0.1').start()).rejects.toThrow(
        `METRICS_PORT ${port} on 127.0.0.1 cannot be used: EADDRINUSE`,
      );
    } finally {
      await first.stop();
    }
  });
});
