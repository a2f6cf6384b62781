import { isIP } from 'node:net';
import { z } from 'zod';
import { ATTEMPT_TIMEOUT_MS, DEFAULT_RETENTION_MONTHS, parseKeyRing } from '@wirehook/core';
import { portVar } from './config.ts';
import { LOG_FORMATS } from './logger.ts';

// Environment variables several services share, declared once; each service's config
// schema spreads the groups it uses.

/**
 * A URL variable whose scheme must be one of `schemes` (e.g. `nats:`), so a typo is refused
 * at start with the variable's name instead of failing later inside a client library.
 */
export function serverUrl(schemes: readonly string[]) {
  const shown = schemes.map((s) => `${s}//`).join(' or ');
  return z.string().refine(
    (value) => {
      if (value === '') return true; // unset (the launchers pass empty values through)
      try {
        const url = new URL(value);
        return schemes.includes(url.protocol) && url.hostname !== '';
      } catch {
        return false;
      }
    },
    { error: `must be a ${shown} URL with a host` },
  );
}

/** The dispatch stream's duplicate window (packages/bus DISPATCH_STREAM): JetStream refuses a max_age below it. */
const STREAM_DUPLICATE_WINDOW_SECONDS = 120;

/**
 * Where the dispatch jobs travel (NATS JetStream), and how its streams are kept, for the
 * services that publish or take them. The stream settings apply when a stream is made; on an
 * existing one replicas are never lowered and storage never changed (bus streamUpdate).
 */
export const natsEnv = {
  NATS_URL: serverUrl(['nats:', 'tls:']).default('nats://127.0.0.1:4222'), // dispatch jobs
  NATS_STREAM_REPLICAS: z.coerce // replicas of each stream and its consumer (1; 3 on a 3-node NATS cluster); never lowered on an existing stream
    .number({ error: 'must be a whole number from 1 to 5' })
    .int({ error: 'must be a whole number from 1 to 5' })
    .min(1, { error: 'must be a whole number from 1 to 5' })
    .max(5, { error: 'must be a whole number from 1 to 5 (JetStream allows no more)' })
    .default(1),
  NATS_STREAM_STORAGE: z // file; memory for a JetStream without file storage (jobs lost on a NATS restart are sent by the sweeper); never changed on an existing stream
    .enum(['file', 'memory'], { error: 'must be file or memory' })
    .default('file'),
  NATS_STREAM_MAX_AGE_SECONDS: z.coerce // 0: no age limit (an existing stream's is kept); else jobs older are dropped (the sweeper still sends their deliveries)
    .number({ error: `must be 0 (no limit) or whole seconds, at least ${STREAM_DUPLICATE_WINDOW_SECONDS}` })
    .int({ error: `must be 0 (no limit) or whole seconds, at least ${STREAM_DUPLICATE_WINDOW_SECONDS}` })
    .refine((s) => s === 0 || s >= STREAM_DUPLICATE_WINDOW_SECONDS, {
      error: `must be 0 (no limit) or at least ${STREAM_DUPLICATE_WINDOW_SECONDS} (the stream's duplicate window: JetStream refuses less)`,
    })
    .default(0),
};

/** The NATS_STREAM_* settings as NatsBus.connect takes them (`streamSettings`). */
export function natsStreamSettings(config: { NATS_STREAM_REPLICAS: number; NATS_STREAM_STORAGE: 'file' | 'memory'; NATS_STREAM_MAX_AGE_SECONDS: number }) {
  return { replicas: config.NATS_STREAM_REPLICAS, storage: config.NATS_STREAM_STORAGE, maxAgeMs: config.NATS_STREAM_MAX_AGE_SECONDS * 1_000 };
}

export const logEnv = {
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(LOG_FORMATS).default('auto'), // auto: one coloured line per event on a terminal, JSON otherwise
};

export const storeEnv = {
  MONGODB_URL: serverUrl(['mongodb:', 'mongodb+srv:']).optional(), // MongoDB (a replica set); without it, SQLite in DATA_DIR
  DATA_DIR: z.string().min(1).default('./.wirehook'), // the SQLite database
  WIREHOOK_SECRET_KEY: z // the key ring sealing signing secrets: base64 32-byte keys, ID:BASE64 or bare, newest first, comma-separated
    .string()
    .superRefine((value, ctx) => {
      try {
        parseKeyRing(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    })
    .optional(),
  WIREHOOK_SECRET_KEY_FILE: z.string().optional(), // without WIREHOOK_SECRET_KEY: a file holding the ring; default ~/.config/wirehook/secret.key, made on first start
  RETENTION_MONTHS: z.coerce.number().int().min(1).max(24).default(DEFAULT_RETENTION_MONTHS), // months of messages kept
};

/**
 * With MongoDB the store is shared by processes that do not share a DATA_DIR: each would make
 * its own key file, and a secret sealed by the gateway would not open in a dispatcher. So a
 * service that seals or opens signing secrets refuses to start without WIREHOOK_SECRET_KEY.
 * (Use as `.superRefine(requireSharedKey)` on the service's schema.)
 */
export function requireSharedKey(config: { MONGODB_URL?: string | undefined; WIREHOOK_SECRET_KEY?: string | undefined }, ctx: z.RefinementCtx): void {
  if (config.MONGODB_URL && !config.WIREHOOK_SECRET_KEY) {
    ctx.addIssue({
      code: 'custom',
      path: ['WIREHOOK_SECRET_KEY'],
      message: 'is required with MONGODB_URL: every service must seal and open signing secrets with the same key (e.g. openssl rand -base64 32)',
    });
  }
}

export const serveEnv = (metricsPort: number) => ({
  HOST: z.string().default('0.0.0.0'), // address the public servers bind (the API, the portal)
  METRICS_PORT: portVar(metricsPort), // Prometheus /metrics, /livez and /readyz
  // Internal, like gRPC's GRPC_HOST: loopback unless told (the chart sets 0.0.0.0 for probes and scrapes by pod IP).
  METRICS_HOST: z.string().default('127.0.0.1'),
  WIREHOOK_EXIT_WITH_PARENT: z.stringbool().default(false), // set by the cluster launcher: stop when its stdin pipe closes (the launcher is gone, even SIGKILLed)
});

export const deliveryEnv = {
  DELIVERY_ALLOW_HOSTS: z.string().default(''), // names, IPs, CIDRs exempt from private-address rules (dev/test only)
  DELIVERY_RESOLVE: z.string().default(''), // host:address pairs overriding DNS, like curl --resolve (dev/test only)
};

/** How a process that sends deliveries sends them (dispatcher replicas and embedded mode). */
export const dispatchEnv = {
  DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(ATTEMPT_TIMEOUT_MS), // one attempt, from when the request is written to the response
  DISPATCH_CONCURRENCY: z.coerce.number().int().min(1).max(4_096).default(256), // deliveries sent at once per process
  ENDPOINT_SLOTS: z.coerce.number().int().min(1).max(1_000).default(16), // concurrent sends to one endpoint per process
  SWEEP_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000), // how often due deliveries are looked for
  RETENTION_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(60 * 1000), // how often old messages are removed (a bounded run each: a steady walk)
};

/**
 * The shared secret the services authenticate each other's gRPC calls with. Required: the
 * intake trusts the tenant and plan a call names. Generate one with `openssl rand -base64 32`
 * and give the same value to every service (the chart keeps it in a Secret).
 */
export const internalAuthEnv = {
  INTERNAL_AUTH_TOKEN: z
    .string({ error: 'is required: the shared secret of calls between services (e.g. openssl rand -base64 32)' })
    .min(32, { error: 'must be at least 32 characters (e.g. openssl rand -base64 32)' }),
};

/** E-mail for failure notices and owner usage e-mails (the alerting service); without SMTP_URL, e-mail targets are refused. */
export const emailEnv = {
  SMTP_URL: serverUrl(['smtp:', 'smtps:']).optional(), // smtp://user:pass@host:587 (STARTTLS) or smtps://…:465
  ALERT_EMAIL_FROM: z.email({ error: 'must be an e-mail address' }).optional(), // the From of notices
};

/** Test-only: a file holding a clock offset in ms shared by every process (see FileOffsetClock). */
export const testClockEnv = {
  WIREHOOK_TEST_CLOCK_FILE: z.string().optional(),
};

/**
 * The fixed IP pool by family: in `bind` mode the addresses of this host the relay binds its
 * connections to; in `nat` mode the NAT gateway's addresses its connections leave with.
 */
export interface RelayPool {
  v4: string[];
  v6: string[];
}

/**
 * RELAY_SOURCE_IPS: comma-separated IPv4/IPv6 addresses; empty means no pool. The egress
 * relay sends from them; the gateway lists them (GET /v1/egress-ips).
 */
export const relaySourceIpsVar = z
  .string()
  .default('')
  .transform((value, ctx): RelayPool => {
    const pool: RelayPool = { v4: [], v6: [] };
    for (const entry of value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const family = isIP(entry);
      if (family === 0) {
        ctx.addIssue({
          code: 'custom',
          message: `${JSON.stringify(entry)} is not an IPv4 or IPv6 address (comma-separated addresses, e.g. 203.0.113.7,2001:db8::7)`,
        });
        return z.NEVER;
      }
      (family === 4 ? pool.v4 : pool.v6).push(entry);
    }
    return pool;
  });
