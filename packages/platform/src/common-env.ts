import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import { ATTEMPT_TIMEOUT_MS, DEFAULT_RETENTION_MONTHS, parseKeyRing } from '@wirehook/core';
import { portVar } from './config.ts';
import { StartupError } from './sealing-keys.ts';
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

/** An optional variable; empty counts as unset (the launchers pass empty values through). */
const optionalText = () =>
  z
    .string()
    .optional()
    .transform((value) => value || undefined);

/**
 * Where the dispatch jobs travel (NATS JetStream), how Wirehook authenticates there, and how
 * its streams are kept, for the services that publish or take them. The stream settings apply
 * when a stream is made; on an existing one replicas are never lowered and storage never
 * changed (bus streamUpdate). Schemas that spread this add `.superRefine(checkNatsEnv)`, and
 * main turns it into NatsBus.connect's options with {@link natsBusOptions}.
 */
export const natsEnv = {
  NATS_URL: serverUrl(['nats:', 'tls:']).default('nats://127.0.0.1:4222'), // dispatch jobs; nats://user:password@host or nats://token@host authenticate too
  NATS_USER: optionalText(), // user of nats-server's user/password authentication (with NATS_PASSWORD)
  NATS_PASSWORD: optionalText(), // its password
  NATS_TOKEN: optionalText(), // token authentication (nats-server --auth)
  NATS_NKEY_SEED_FILE: optionalText(), // a file holding a user nkey seed (SU…), for an nkey user of the server
  NATS_CREDS_FILE: optionalText(), // a .creds file (user JWT + nkey seed): operator mode, e.g. Synadia Cloud
  NATS_TLS_CA_FILE: optionalText(), // PEM CA the server's certificate is checked against (default: the system CAs); turns TLS on
  NATS_TLS_CERT_FILE: optionalText(), // PEM client certificate, for a server that verifies clients (with NATS_TLS_KEY_FILE)
  NATS_TLS_KEY_FILE: optionalText(), // its PEM private key
  NATS_PREFIX: z // first part of every stream, subject, consumer and bucket name Wirehook makes in NATS: one per install sharing a NATS
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, {
      error: 'must be lower-case letters, digits, - and _, starting with a letter or digit, at most 32 (e.g. the release name)',
    })
    .default('wirehook'),
  NATS_STREAM_REPLICAS: z.coerce // replicas of each stream and its consumer (1; 3 on a 3-node NATS cluster); never lowered on an existing stream
    .number({ error: 'must be a whole number from 1 to 5' })
    .int({ error: 'must be a whole number from 1 to 5' })
    .min(1, { error: 'must be a whole number from 1 to 5' })
    .max(5, { error: 'must be a whole number from 1 to 5 (JetStream allows no more)' })
    .default(1),
  // file; memory for a JetStream without file storage (jobs lost on a NATS restart are sent by the
  // sweeper); never changed on an existing stream
  NATS_STREAM_STORAGE: z.enum(['file', 'memory'], { error: 'must be file or memory' }).default('file'),
  // jobs older are dropped (the sweeper still sends their deliveries); default a day; 0: none on a
  // new stream, an existing stream's kept
  NATS_STREAM_MAX_AGE_SECONDS: z.coerce
    .number({ error: `must be 0 (no limit) or whole seconds, at least ${STREAM_DUPLICATE_WINDOW_SECONDS}` })
    .int({ error: `must be 0 (no limit) or whole seconds, at least ${STREAM_DUPLICATE_WINDOW_SECONDS}` })
    .refine((s) => s === 0 || s >= STREAM_DUPLICATE_WINDOW_SECONDS, {
      error: `must be 0 (no limit) or at least ${STREAM_DUPLICATE_WINDOW_SECONDS} (the stream's duplicate window: JetStream refuses less)`,
    })
    .default(86_400),
  // the most each stream stores (default 64 MiB, ~300 000 wake-ups); when full the oldest jobs are
  // dropped and the sweeper sends them
  NATS_STREAM_MAX_BYTES: z.coerce
    .number({ error: 'must be whole bytes, at least 1048576 (1 MiB)' })
    .int({ error: 'must be whole bytes, at least 1048576 (1 MiB)' })
    .min(1_048_576, { error: 'must be whole bytes, at least 1048576 (1 MiB)' })
    .default(64 * 1024 * 1024),
};

type NatsSettingsVars = {
  NATS_STREAM_REPLICAS: number;
  NATS_STREAM_STORAGE: 'file' | 'memory';
  NATS_STREAM_MAX_AGE_SECONDS: number;
  NATS_STREAM_MAX_BYTES?: number | undefined;
};

/** The NATS_STREAM_* settings as NatsBus.connect takes them (`streamSettings`). */
export function natsStreamSettings(config: NatsSettingsVars) {
  return {
    replicas: config.NATS_STREAM_REPLICAS,
    storage: config.NATS_STREAM_STORAGE,
    maxAgeMs: config.NATS_STREAM_MAX_AGE_SECONDS * 1_000,
    maxBytes: config.NATS_STREAM_MAX_BYTES ?? 64 * 1024 * 1024,
  };
}

/** The NATS variables natsBusOptions reads (a service config that spreads natsEnv has them). */
export type NatsVars = NatsSettingsVars & {
  NATS_URL: string;
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  NATS_TOKEN?: string | undefined;
  NATS_NKEY_SEED_FILE?: string | undefined;
  NATS_CREDS_FILE?: string | undefined;
  NATS_TLS_CA_FILE?: string | undefined;
  NATS_TLS_CERT_FILE?: string | undefined;
  NATS_TLS_KEY_FILE?: string | undefined;
  NATS_PREFIX?: string | undefined;
};

/** How NatsBus authenticates (the shape of packages/bus NatsAuth: plain data, files by path). */
export type NatsAuthOptions =
  | { kind: 'none' }
  | { kind: 'user'; user: string; password: string; fromUrl: boolean }
  | { kind: 'token'; token: string; fromUrl: boolean }
  | { kind: 'nkey'; seedFile: string }
  | { kind: 'creds'; credsFile: string };

/** What NatsBus.connect takes from the environment, besides its name. */
export interface NatsConnectOptions {
  /** NATS_URL without user info (nats.js drops it; it is in `auth`), fit for logs. */
  servers: string;
  auth: NatsAuthOptions;
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  prefix: string;
  streamSettings: ReturnType<typeof natsStreamSettings>;
}

/** One problem with the NATS variables: the variable, and a message that names no secret. */
export interface NatsEnvProblem {
  variable: string;
  message: string;
}

/**
 * The NATS connection options from the environment, parsed once: authentication from
 * NATS_URL's user info or exactly one of NATS_USER+NATS_PASSWORD, NATS_TOKEN,
 * NATS_NKEY_SEED_FILE, NATS_CREDS_FILE; TLS from NATS_TLS_*; files checked readable and of
 * the right kind. Problems name the variable (and a file's path), never a secret.
 */
export function parseNatsEnv(config: NatsVars): { options: NatsConnectOptions; problems?: never } | { options?: never; problems: NatsEnvProblem[] } {
  const problems: NatsEnvProblem[] = [];
  let servers = config.NATS_URL;
  const kinds: { name: string; auth: NatsAuthOptions }[] = [];
  try {
    const url = new URL(config.NATS_URL);
    if (url.username !== '' || url.password !== '') {
      const user = decodeURIComponent(url.username);
      const password = decodeURIComponent(url.password);
      // nats://token@host is a token (as the nats CLI reads it); nats://user:password@host a user.
      if (url.password === '') kinds.push({ name: 'a token in NATS_URL', auth: { kind: 'token', token: user, fromUrl: true } });
      else kinds.push({ name: 'user:password in NATS_URL', auth: { kind: 'user', user, password, fromUrl: true } });
      url.username = '';
      url.password = '';
      servers = url.toString();
    }
  } catch {
    // NATS_URL's own rule has said what is wrong with it, unless its user info is what failed
    // (bad percent-encoding): then the URL, secret and all, must not reach a log line.
    servers = config.NATS_URL.replace(/^([a-z]+:\/\/)[^/@]*@/i, '$1');
    if (/^[a-z]+:\/\/[^/@]*@/i.test(config.NATS_URL)) {
      problems.push({ variable: 'NATS_URL', message: 'its user info (before @) is not valid percent-encoding: encode % as %25' });
    }
  }
  if (config.NATS_USER !== undefined || config.NATS_PASSWORD !== undefined) {
    if (config.NATS_USER === undefined) problems.push({ variable: 'NATS_PASSWORD', message: 'is set without NATS_USER: set both, or neither' });
    else if (config.NATS_PASSWORD === undefined) problems.push({ variable: 'NATS_USER', message: 'is set without NATS_PASSWORD: set both, or neither' });
    else kinds.push({ name: 'NATS_USER/NATS_PASSWORD', auth: { kind: 'user', user: config.NATS_USER, password: config.NATS_PASSWORD, fromUrl: false } });
  }
  if (config.NATS_TOKEN !== undefined) kinds.push({ name: 'NATS_TOKEN', auth: { kind: 'token', token: config.NATS_TOKEN, fromUrl: false } });
  if (config.NATS_NKEY_SEED_FILE !== undefined) {
    const seed = readable('NATS_NKEY_SEED_FILE', config.NATS_NKEY_SEED_FILE, problems);
    if (seed !== undefined && !seed.trim().startsWith('SU')) {
      problems.push({
        variable: 'NATS_NKEY_SEED_FILE',
        message: `(${config.NATS_NKEY_SEED_FILE}) does not hold a user nkey seed (one line starting with SU, as nk -gen user prints)`,
      });
    }
    kinds.push({ name: 'NATS_NKEY_SEED_FILE', auth: { kind: 'nkey', seedFile: config.NATS_NKEY_SEED_FILE } });
  }
  if (config.NATS_CREDS_FILE !== undefined) {
    const creds = readable('NATS_CREDS_FILE', config.NATS_CREDS_FILE, problems);
    if (creds !== undefined && !(/-----BEGIN NATS USER JWT-----/.test(creds) && /-----BEGIN USER NKEY SEED-----/.test(creds))) {
      problems.push({
        variable: 'NATS_CREDS_FILE',
        message: `(${config.NATS_CREDS_FILE}) is not a NATS credentials file (it needs a BEGIN NATS USER JWT block and a BEGIN USER NKEY SEED block)`,
      });
    }
    kinds.push({ name: 'NATS_CREDS_FILE', auth: { kind: 'creds', credsFile: config.NATS_CREDS_FILE } });
  }
  if (kinds.length > 1) {
    problems.push({
      variable: kinds[1]!.name.startsWith('NATS_') ? kinds[1]!.name.split('/')[0]! : 'NATS_URL',
      message: `${kinds.map((k) => k.name).join(' and ')} are set together: nats-server takes one way of authenticating per connection; keep one`,
    });
  }
  const tls: { caFile?: string; certFile?: string; keyFile?: string } = {};
  for (const [variable, key] of [
    ['NATS_TLS_CA_FILE', 'caFile'],
    ['NATS_TLS_CERT_FILE', 'certFile'],
    ['NATS_TLS_KEY_FILE', 'keyFile'],
  ] as const) {
    const path = config[variable];
    if (path === undefined) continue;
    if (readable(variable, path, problems) !== undefined) tls[key] = path;
  }
  if ((config.NATS_TLS_CERT_FILE === undefined) !== (config.NATS_TLS_KEY_FILE === undefined)) {
    const [set, unset] = config.NATS_TLS_CERT_FILE === undefined ? ['NATS_TLS_KEY_FILE', 'NATS_TLS_CERT_FILE'] : ['NATS_TLS_CERT_FILE', 'NATS_TLS_KEY_FILE'];
    problems.push({ variable: set, message: `is set without ${unset}: a client certificate needs both` });
  }
  if (problems.length > 0) return { problems };
  return {
    options: {
      servers,
      auth: kinds[0]?.auth ?? { kind: 'none' },
      ...(Object.keys(tls).length > 0 ? { tls } : {}),
      prefix: config.NATS_PREFIX ?? 'wirehook',
      streamSettings: natsStreamSettings(config),
    },
  };
}

/** The file's text, or undefined with a problem naming the variable and the path (never the contents). */
function readable(variable: string, path: string, problems: NatsEnvProblem[]): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'a directory' : (code ?? 'unreadable');
    problems.push({ variable, message: `names ${path}, which cannot be read (${why})` });
    return undefined;
  }
}

/** For a schema spreading natsEnv: `.superRefine(checkNatsEnv)` reports bad NATS combinations at load, by variable. */
export function checkNatsEnv(config: NatsVars, ctx: z.RefinementCtx): void {
  const parsed = parseNatsEnv(config);
  for (const problem of parsed.problems ?? []) ctx.addIssue({ code: 'custom', path: [problem.variable], message: problem.message });
}

/**
 * NatsBus.connect's options (less its name) from a config loaded with natsEnv.
 * @throws StartupError naming the variable, when a problem appeared since the config was loaded (a file removed).
 */
export function natsBusOptions(config: NatsVars): NatsConnectOptions {
  const parsed = parseNatsEnv(config);
  if (parsed.problems) throw new StartupError(parsed.problems.map((p) => `${p.variable} ${p.message}`).join('; '));
  return parsed.options;
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
  // without WIREHOOK_SECRET_KEY: a file holding the ring; default ~/.config/wirehook/secret.key, made on first start
  WIREHOOK_SECRET_KEY_FILE: z.string().optional(),
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
  // Set by the cluster launcher: stop when its stdin pipe closes (the launcher is gone, even SIGKILLed).
  WIREHOOK_EXIT_WITH_PARENT: z.stringbool().default(false),
});

export const deliveryEnv = {
  DELIVERY_ALLOW_HOSTS: z.string().default(''), // names, IPs, CIDRs exempt from private-address rules (dev/test only)
  DELIVERY_RESOLVE: z.string().default(''), // host:address pairs overriding DNS, like curl --resolve (dev/test only)
};

/** How a process that sends deliveries sends them (dispatcher replicas and embedded mode). */
export const dispatchEnv = {
  // one attempt, from when the request is written to the response
  DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(ATTEMPT_TIMEOUT_MS),
  // deliveries sent at once per process: 512 kept delivery at intake's pace with 256 senders where
  // 256 let a backlog grow, and bounds in-flight 1 MB payloads to half the chart's 1 GiB (docs/benchmarks.md)
  DISPATCH_CONCURRENCY: z.coerce.number().int().min(1).max(4_096).default(512),
  ENDPOINT_SLOTS: z.coerce.number().int().min(1).max(1_000).default(16), // concurrent sends to one endpoint per process
  // of DISPATCH_CONCURRENCY, the sends one tenant (org + environment) may hold at once per process, so one
  // tenant's slow receivers never take every place; unset: a quarter of DISPATCH_CONCURRENCY, at least
  // ENDPOINT_SLOTS (128 of 512); DISPATCH_CONCURRENCY or more: no bound but the places
  DISPATCH_PLACES_PER_TENANT: z.coerce.number().int().min(1).max(4_096).optional(),
  SWEEP_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000), // how often due deliveries are looked for
  TRANSFORM_THREADS: z.coerce.number().int().min(1).max(16).default(1), // sandbox threads running endpoints' transformations per process (started at the first)
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
