import type { Clock, IntakePort, RecoveryPort, SecretBox, Transformer } from '@wirehook/core';
import type { AddressPolicy, LookupFn } from '@wirehook/egress';
import type { EndpointThroughput, RateLimiter } from '@wirehook/kv';
import type { HttpMetrics, Logger } from '@wirehook/platform';
import type { Store } from '@wirehook/store';

/**
 * What the HTTP API's routes read, built by one factory (`apiDeps`, cluster-deps.ts) or by
 * embedded mode, and handed in: the same for the gateway's /v1 and the portal's token API.
 */
export interface ApiDeps {
  store: Store;
  /** Accepting messages and re-sends (message-intake). */
  intake: IntakePort;
  /** Starting and reading recoveries (the recovery service). */
  recovery: RecoveryPort;
  rateLimiter: RateLimiter;
  /** Endpoints' throughput as the dispatchers share it (in flight, adaptive limit); absent: reported as none. */
  throughput?: EndpointThroughput;
  clock: Clock;
  logger: Logger;
  metrics: HttpMetrics;
  /** Seals signing secrets before they reach the store. */
  secretBox: SecretBox;
  /** Which destination addresses endpoints may use (DELIVERY_ALLOW_HOSTS). */
  addressPolicy: AddressPolicy;
  /** DNS resolution for endpoint URL checks. */
  lookup: LookupFn;
  /** Months of messages kept; bounds cursors and message ids. */
  retentionMonths: number;
  /** Runs endpoints' transformations for POST /v1/endpoints/{id}/transformation/simulate (@wirehook/transform's TransformRunner). */
  transforms: Transformer;
}

/**
 * What the routes only the public API serves read besides: portal links are made and e-mail
 * targets set up through the gateway, never through the portal.
 */
export interface PublicApiDeps extends ApiDeps {
  /** Base of portal links (PORTAL_PUBLIC_URL). */
  portalPublicUrl: string;
  /** SMTP_URL is set: e-mail alert targets can be made. */
  emailConfigured: boolean;
  /** API_PUBLIC_URL: the `servers` URL of the served OpenAPI document; absent: each request's own origin. */
  apiPublicUrl?: string;
}
