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
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type EmbeddedConfig = z.output<typeof embeddedConfigSchema>;
