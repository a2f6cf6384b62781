import type { Clock, IntakePort, RecoveryPort, SecretBox } from '@wirehook/core';
import type { AddressPolicy, LookupFn } from '@wirehook/egress';
import type { RateLimiter } from '@wirehook/kv';
import type { HttpMetrics, Logger } from '@wirehook/platform';
import type { Store } from '@wirehook/store';

/**
 * Everything the portal's server needs, built by a composition root and handed in. Its API
 * serves the gateway's /v1 routes under a link's token, so it needs what they read too.
 */
export interface PortalDeps {
  store: Store;
  /** Test messages, re-sends, and releasing held deliveries on a resume (message-intake). */
  intake: IntakePort;
  /** Starting and reading recoveries (the recovery service). */
  recovery: RecoveryPort;
  /** Each link's consumer has its own per-minute budget. */
  rateLimiter: RateLimiter;
  clock: Clock;
  logger: Logger;
  metrics: HttpMetrics;
  /** Seals new signing secrets, and opens the current one for "Reveal". */
  secretBox: SecretBox;
  /** Which destination addresses endpoints may use (DELIVERY_ALLOW_HOSTS). */
  addressPolicy: AddressPolicy;
  /** DNS resolution for endpoint URL checks. */
  lookup: LookupFn;
  /** Months of messages kept; bounds cursors and message ids. */
  retentionMonths: number;
}
