import {
  InvalidError,
  newId,
  retentionStart,
  type Clock,
  type EndpointId,
  type Recovery,
  type RecoveryId,
  type RecoveryPort,
  type Tenant,
} from '@wirehook/core';
import type { Store } from '@wirehook/store';

/**
 * Starts and reads recoveries: checks `since` against the clock and the retention window,
 * then lets the store snapshot the targets (and refuse a second running one) in one
 * transaction. The RecoveryWorker does the sending.
 */
export class RecoveryService implements RecoveryPort {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #retentionMonths: number;

  constructor(deps: { store: Store; clock: Clock; retentionMonths: number }) {
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#retentionMonths = deps.retentionMonths;
  }

  async start(t: Tenant, endpointId: EndpointId, since: number): Promise<Recovery> {
    const now = this.#clock.now();
    // The spec's "before now": a recovery from now would target nothing.
    if (since >= now) throw new InvalidError('since: must be before now');
    const oldest = retentionStart(now, this.#retentionMonths);
    if (since < oldest) {
      throw new InvalidError(`since: must lie inside the retention period (${this.#retentionMonths} months: at or after ${oldest})`);
    }
    return this.#store.recoveries.start(t, { id: newId('recovery', this.#clock), endpointId, since, createdAt: now });
  }

  async get(t: Tenant, endpointId: EndpointId, id: RecoveryId): Promise<Recovery | null> {
    return this.#store.recoveries.get(t, endpointId, id);
  }
}
