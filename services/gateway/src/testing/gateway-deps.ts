import { SecretBox, systemClock } from '@wirehook/core';
import { AddressPolicy } from '@wirehook/egress';
import type { PublicApiDeps } from '@wirehook/http-api';
import { MemoryKv, RateLimiter } from '@wirehook/kv';
import { createHttpMetrics, createLogger, createRegistry } from '@wirehook/platform';
import { RecoveryService } from '@wirehook/recovery';
import type { Store } from '@wirehook/store';
import { TransformRunner } from '@wirehook/transform';

/**
 * A gateway's deps for a test: `store` and `intake` as given, the rate limit in memory, a debug
 * logger writing JSON lines to `logs`, metrics of its own, every endpoint name resolving to one
 * public address (endpoint URLs are checked by resolving them).
 */
export function gatewayTestDeps(store: Store, intake: PublicApiDeps['intake'], logs: NodeJS.WritableStream): PublicApiDeps {
  return {
    store,
    intake,
    recovery: new RecoveryService({ store, clock: systemClock, retentionMonths: 3 }),
    rateLimiter: new RateLimiter({ kv: new MemoryKv({ clock: systemClock }), clock: systemClock }),
    clock: systemClock,
    logger: createLogger({ name: 'gateway', level: 'debug', destination: logs }),
    metrics: createHttpMetrics(createRegistry('gateway')),
    secretBox: SecretBox.fromBase64(SecretBox.generateKey()),
    addressPolicy: new AddressPolicy({ allowHosts: '' }),
    lookup: async () => [{ address: '93.184.215.14', family: 4 }],
    retentionMonths: 3,
    transforms: new TransformRunner(),
    portalPublicUrl: 'http://localhost:8081',
    emailConfigured: false,
  };
}
