import { ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import type { DeliveryId, Tenant } from '@wirehook/core';

/**
 * Claimed-then-released deliveries waiting here for a slot of their endpoint, per endpoint in
 * arrival order, at most `perEndpoint` each. Bounding each endpoint (not the whole map) is
 * what keeps one endpoint's backlog from crowding out the others: a wake-up beyond the bound
 * is not kept, the endpoint is marked `overflowed`, and the delivery waits in the store until
 * the endpoint's queue is half drained and the sweeper refills it.
 */
export class ParkedWakeups {
  readonly perEndpoint: number;
  /**
   * Per endpoint, its parked deliveries in arrival order, each with the trace its wake-up arrived in
   * (its send, later, continues it) and its tenant when its gate entry named it (a held tenant's
   * turn is not claimed: TenantHolds).
   */
  readonly #queues = new Map<string, Map<DeliveryId, { trace: Context; tenant: Tenant | undefined }>>();
  readonly #overflowed = new Set<string>();
  #size = 0;

  constructor(perEndpoint: number) {
    this.perEndpoint = perEndpoint;
  }

  /** How many are parked, across endpoints. */
  get size(): number {
    return this.#size;
  }

  /** True when deliveries of `endpointId` wait here. */
  has(endpointId: string): boolean {
    return this.#queues.has(endpointId);
  }

  /** Whether `endpointId` has half its parking or less taken: the point a drain asks for a refill (`next`). */
  drainedToHalf(endpointId: string): boolean {
    return (this.#queues.get(endpointId)?.size ?? 0) <= this.perEndpoint / 2;
  }

  /** Places left in `endpointId`'s parking. */
  freeOf(endpointId: string): number {
    return Math.max(0, this.perEndpoint - (this.#queues.get(endpointId)?.size ?? 0));
  }

  /**
   * Parks `id` for `endpointId`. @returns false when the endpoint's queue is full (it is
   * then marked overflowed) and true when parked or already parked.
   */
  park(endpointId: string, id: DeliveryId, trace: Context, tenant?: Tenant): boolean {
    const queue = this.#queues.get(endpointId) ?? new Map<DeliveryId, { trace: Context; tenant: Tenant | undefined }>();
    if (queue.has(id)) return true;
    if (queue.size >= this.perEndpoint) {
      this.#overflowed.add(endpointId);
      return false;
    }
    queue.set(id, { trace, tenant });
    this.#queues.set(endpointId, queue);
    this.#size++;
    return true;
  }

  /** Marks an endpoint whose due deliveries were left in the store for want of room here. */
  markOverflowed(endpointId: string): void {
    this.#overflowed.add(endpointId);
  }

  /**
   * The next parked delivery of `endpointId` with its trace, or undefined. `refill` is true
   * when the queue is now down to half and deliveries of this endpoint were left in the store:
   * the caller should sweep for them. Half, not empty: the sweep's round trip (store, bus,
   * claim) then overlaps the rest's sends; asked at empty, a busy endpoint's sends stopped for
   * it (issue 32: a receiver of capacity 4 got 83 % of it in cluster mode).
   */
  next(endpointId: string): { id: DeliveryId | undefined; trace: Context; tenant?: Tenant; refill: boolean } {
    const queue = this.#queues.get(endpointId);
    const [id, parked] = queue?.entries().next().value ?? [undefined, undefined];
    if (queue !== undefined && id !== undefined) {
      queue.delete(id);
      this.#size--;
      if (queue.size === 0) this.#queues.delete(endpointId);
    }
    const trace = parked?.trace ?? ROOT_CONTEXT;
    const tenant = parked?.tenant;
    const left = this.#queues.get(endpointId)?.size ?? 0;
    const refill = left <= this.perEndpoint / 2 && this.#overflowed.delete(endpointId);
    return tenant === undefined ? { id, trace, refill } : { id, trace, tenant, refill };
  }
}
