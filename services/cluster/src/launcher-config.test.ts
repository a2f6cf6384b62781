// The launcher's own variables: NATS_URL and REDIS_URL are checked by the services' rules for
// them (platform's serverUrl, packages/kv's parseRedisUrl), so the launcher refuses what a
// service would refuse and takes what it takes — a Sentinel group included — and says, in one
// line per variable, what it must be; unset or empty means "start it here".
import { describe, expect, it } from 'vitest';
import { readLauncherConfig } from './launcher-config.ts';

const NATS = 'NATS_URL must be a nats:// or tls:// URL with a host (or unset: nats-server is started here)';
const REDIS = 'REDIS_URL must be a redis://, rediss:// or redis+sentinel:// URL with a host (or unset: redis-server is started here)';

describe('readLauncherConfig', () => {
  it('the defaults: ports, ./.wirehook, two dispatchers, 30 s to report live, NATS and Redis started here', () => {
    expect(readLauncherConfig({}).config).toEqual({
      PORT: 8080,
      PORTAL_PORT: 8081,
      INTAKE_GRPC_PORT: 50051,
      RECOVERY_GRPC_PORT: 50053,
      RELAY_GRPC_PORT: 50052,
      METRICS_PORT: 9464,
      DATA_DIR: './.wirehook',
      NATS_URL: undefined,
      REDIS_URL: undefined,
      NATS_PORT: 4222,
      REDIS_PORT: 6379,
      DISPATCHERS: 2,
      CLUSTER_START_TIMEOUT_MS: 30_000,
    });
    expect(Object.isFrozen(readLauncherConfig({}).config)).toBe(true);
  });

  it('an empty URL is an unset one (./dev passes empty values through)', () => {
    expect(readLauncherConfig({ NATS_URL: '', REDIS_URL: '' }).config).toMatchObject({ NATS_URL: undefined, REDIS_URL: undefined });
  });

  it.each([
    ['nats://127.0.0.1:4222', 'NATS_URL'],
    ['tls://nats.internal', 'NATS_URL'],
    ['redis://127.0.0.1:6379', 'REDIS_URL'],
    ['rediss://user:secret@cache.internal:6380', 'REDIS_URL'],
    ['redis+sentinel://s1:26379,s2:26379,[::1]:26380/mymaster', 'REDIS_URL'],
    ['rediss+sentinel://:secret@s1,s2/mymaster/2', 'REDIS_URL'],
  ])('takes %s as %s, unchanged', (url, variable) => {
    const { config, problems } = readLauncherConfig({ [variable]: url });
    expect(problems).toBeUndefined();
    expect(config?.[variable as 'NATS_URL' | 'REDIS_URL']).toBe(url);
  });

  it.each([
    ['nonsense', 'NATS_URL', NATS],
    ['nats://', 'NATS_URL', NATS],
    ['redis://127.0.0.1:6379', 'NATS_URL', NATS],
    ['nonsense', 'REDIS_URL', REDIS],
    ['http://cache.internal', 'REDIS_URL', REDIS],
    ['redis+sentinel://s1:26379,s2:26379', 'REDIS_URL', REDIS], // no primary name
    ['redis+sentinel://s1:26379,s2:26379/', 'REDIS_URL', REDIS],
  ])('refuses %s as %s in one line naming the variable, never the value', (url, variable, line) => {
    const { problems } = readLauncherConfig({ [variable]: url });
    expect(problems).toEqual([line]);
  });

  it('one line per bad variable', () => {
    expect(readLauncherConfig({ NATS_URL: 'x', REDIS_URL: 'y', DISPATCHERS: '17' }).problems).toEqual([
      NATS,
      REDIS,
      'DISPATCHERS Too big: expected number to be <=16',
    ]);
  });
});
