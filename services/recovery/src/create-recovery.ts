import type { Bus } from '@wirehook/bus';
import type { Clock } from '@wirehook/core';
import type { Logger } from '@wirehook/platform';
import type { Store } from '@wirehook/store';
import type { Registry } from 'prom-client';
import { RecoveryService } from './recovery-service.ts';
import { RecoveryWorker } from './recovery-worker.ts';

/**
 * Recovery, wired: the service the gateway calls (in-process, or behind the gRPC server)
 * and the worker that drives running recoveries. Embedded mode and the recovery process
 * both build it here.
 */
export function createRecovery(
  config: { ENDPOINT_SLOTS: number; RETENTION_MONTHS: number },
  deps: { store: Store; bus: Bus; clock: Clock; logger: Logger; registry?: Registry; soleWorker: boolean; tickMs?: number },
): { service: RecoveryService; worker: RecoveryWorker } {
  const { store, bus, clock, logger } = deps;
  return {
    service: new RecoveryService({ store, clock, retentionMonths: config.RETENTION_MONTHS }),
    worker: new RecoveryWorker({
      store,
      bus,
      clock,
      logger: logger.child({ component: 'recovery' }),
      registry: deps.registry,
      endpointSlots: config.ENDPOINT_SLOTS,
      releaseLeasesAtStart: deps.soleWorker,
      tickMs: deps.tickMs,
    }),
  };
}
