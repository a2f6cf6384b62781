// The cluster launcher's environment: ports, DATA_DIR, and the NATS and Redis it is given
// (or starts itself when they are unset).
import { isRedisUrl } from '@wirehook/kv';
import { portVar, serverUrl } from '@wirehook/platform';
import { z } from 'zod';
import { dispatchersSchema } from './dispatchers.ts';

/** REDIS_URL as the gateway reads it (packages/kv): one server, or a Sentinel group of several hosts. */
const redisUrl = z.string().refine(isRedisUrl, { error: 'must be a redis://, rediss:// or redis+sentinel:// URL with a host' });

/**
 * A server's URL variable, checked by the services' own rule for it (so the launcher takes
 * what they take); unset or empty, the launcher starts `server` itself, as its error says.
 */
function givenServerUrl(rule: z.ZodType<string>, server: string) {
  return z
    .string()
    .optional()
    .transform((value) => value || undefined)
    .superRefine((value, ctx) => {
      if (value === undefined) return;
      const checked = rule.safeParse(value);
      if (!checked.success) ctx.addIssue({ code: 'custom', message: `${checked.error.issues[0]?.message} (or unset: ${server} is started here)` });
    });
}

export const launcherConfigSchema = z.object({
  PORT: portVar(8080), // public API (gateway)
  PORTAL_PORT: portVar(8081), // the customer portal
  INTAKE_GRPC_PORT: portVar(50051), // message-intake gRPC
  RECOVERY_GRPC_PORT: portVar(50053), // the recovery service's gRPC
  RELAY_GRPC_PORT: portVar(50052), // the egress relay's gRPC
  METRICS_PORT: portVar(9464), // first metrics port; services take consecutive ones
  DATA_DIR: z.string().default('./.wirehook'), // SQLite file, secret key, JetStream store
  NATS_URL: givenServerUrl(serverUrl(['nats:', 'tls:']), 'nats-server'), // default: start nats-server on NATS_PORT
  REDIS_URL: givenServerUrl(redisUrl, 'redis-server'), // default: start redis-server on REDIS_PORT
  NATS_PORT: portVar(4222), // where the nats-server started here listens
  REDIS_PORT: portVar(6379), // where the redis-server started here listens
  DISPATCHERS: dispatchersSchema, // dispatcher replicas
  CLUSTER_START_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000), // how long each service may take to report live
});

export type LauncherConfig = Readonly<z.infer<typeof launcherConfigSchema>>;

/**
 * The launcher's config from `env`, frozen; or one line per bad variable, naming it and what
 * it must be (never its value: a URL may hold a password).
 */
export function readLauncherConfig(env: NodeJS.ProcessEnv): { config: LauncherConfig; problems?: never } | { config?: never; problems: string[] } {
  const parsed = launcherConfigSchema.safeParse(env);
  if (!parsed.success) return { problems: parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`) };
  return { config: Object.freeze(parsed.data) };
}
