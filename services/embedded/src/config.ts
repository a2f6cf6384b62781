import { z } from 'zod';
import { DEFAULT_RETENTION_MONTHS } from '@wirehook/core';
import { portVar } from '@wirehook/platform';

/** Embedded mode's environment: every variable, its default, parsed once in main. */
export const embeddedConfigSchema = z.object({
  PORT: portVar(8080), // public API
  PORTAL_PORT: portVar(8081), // customer settings page (portal service)
  PORTAL_PUBLIC_URL: z.url().default('http://localhost:8081'), // base of portal links
  METRICS_PORT: portVar(9464), // Prometheus /metrics
  HOST: z.string().default('0.0.0.0'), // address the servers bind
  DATA_DIR: z.string().min(1).default('./.wirehook'), // SQLite file and secret key
  DELIVERY_ALLOW_HOSTS: z.string().default(''), // names, IPs, CIDRs exempt from private-address rules (dev/test only)
  RETENTION_MONTHS: z.coerce.number().int().min(1).max(24).default(DEFAULT_RETENTION_MONTHS), // months of messages kept
  WIREHOOK_SECRET_KEY: z.string().optional(), // base64 32-byte key sealing signing secrets; default: DATA_DIR/secret.key
  DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000), // one attempt, connect to response
  DISPATCH_CONCURRENCY: z.coerce.number().int().min(1).max(4_096).default(256), // deliveries sent at once
  ENDPOINT_SLOTS: z.coerce.number().int().min(1).max(1_000).default(16), // concurrent sends to one endpoint
  SWEEP_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000), // how often due deliveries are looked for
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(1_000).default(60 * 60 * 1000), // how often old messages are removed
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type EmbeddedConfig = z.output<typeof embeddedConfigSchema>;
