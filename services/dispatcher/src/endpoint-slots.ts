/**
 * Concurrent-connection slots per endpoint: at most `perEndpoint` sends to one endpoint at
 * a time, so one slow or failing customer cannot take every connection.
 */
export class EndpointSlots {
  readonly perEndpoint: number;
  readonly #inUse = new Map<string, number>();

  constructor(perEndpoint: number) {
    this.perEndpoint = perEndpoint;
  }

  /** Takes a slot; false when all are in use, or `cap` of them (an adaptive limit below the slots). */
  tryTake(endpointId: string, cap = this.perEndpoint): boolean {
    const used = this.#inUse.get(endpointId) ?? 0;
    if (used >= Math.min(cap, this.perEndpoint)) return false;
    this.#inUse.set(endpointId, used + 1);
    return true;
  }

  give(endpointId: string): void {
    const used = (this.#inUse.get(endpointId) ?? 1) - 1;
    if (used <= 0) this.#inUse.delete(endpointId);
    else this.#inUse.set(endpointId, used);
  }

  inUse(endpointId: string): number {
    return this.#inUse.get(endpointId) ?? 0;
  }
}
