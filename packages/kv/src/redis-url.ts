import type { RedisOptions } from 'ioredis';

/**
 * Where RedisKv connects, read from REDIS_URL: one server (`redis://`, `rediss://` for TLS),
 * or a Sentinel group that names the current primary (`redis+sentinel://`, `rediss+sentinel://`),
 * so that losing one Redis is a failover and not an outage:
 *
 *   redis+sentinel://[user:password@]sentinel-1:26379,sentinel-2:26379/<primary name>[/<db>]
 *
 * The password is the primary's (and the sentinels', when they require one: the same, as
 * most managed Sentinel setups have it). ioredis follows a failover by asking the sentinels.
 */
export type RedisTarget =
  | { kind: 'server'; url: string; where: string }
  | {
      kind: 'sentinel';
      options: Pick<RedisOptions, 'sentinels' | 'name' | 'username' | 'password' | 'sentinelPassword' | 'db' | 'tls' | 'enableTLSForSentinelMode'>;
      where: string;
    };

const SENTINEL = /^(rediss?)\+sentinel:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/@]+)\/([^/?#]+)(?:\/(\d+))?\/?$/;

/** @throws RangeError naming the expected forms when `url` is neither. */
export function parseRedisUrl(url: string): RedisTarget {
  const sentinel = SENTINEL.exec(url);
  if (sentinel) {
    const [, scheme, user, password, hostList, name, db] = sentinel as unknown as [
      string,
      string,
      string | undefined,
      string | undefined,
      string,
      string,
      string | undefined,
    ];
    const sentinels = hostList.split(',').map((entry) => {
      const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(entry.trim());
      if (!m || m[1] === '') throw new RangeError(`kv: ${JSON.stringify(entry)} is not a sentinel host[:port]`);
      return { host: m[1]!, port: m[2] === undefined ? 26379 : Number(m[2]) };
    });
    const secret = password === undefined ? undefined : decodeURIComponent(password);
    return {
      kind: 'sentinel',
      where: `Sentinel primary ${decodeURIComponent(name)} via ${sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`,
      options: {
        sentinels,
        name: decodeURIComponent(name),
        ...(user ? { username: decodeURIComponent(user) } : {}),
        ...(secret === undefined ? {} : { password: secret, sentinelPassword: secret }),
        ...(db === undefined ? {} : { db: Number(db) }),
        ...(scheme === 'rediss' ? { tls: {}, enableTLSForSentinelMode: true } : {}),
      },
    };
  }
  try {
    const parsed = new URL(url);
    if ((parsed.protocol === 'redis:' || parsed.protocol === 'rediss:') && parsed.hostname !== '') {
      return { kind: 'server', url, where: `${parsed.hostname}:${parsed.port || '6379'}` };
    }
  } catch {
    // refused below
  }
  throw new RangeError('kv: url must be redis://host:port, rediss://host:port, or redis+sentinel://host:port[,host:port…]/<primary name>');
}

/** Whether `value` is a REDIS_URL {@link parseRedisUrl} takes (for config schemas, which word their own error). */
export function isRedisUrl(value: string): boolean {
  try {
    parseRedisUrl(value);
    return true;
  } catch {
    return false;
  }
}
