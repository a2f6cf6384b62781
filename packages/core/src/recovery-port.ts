import type { EndpointId, RecoveryId } from './ids.ts';
import type { Recovery, Tenant } from './model.ts';

/**
 * What the gateway asks of the recovery service: in embedded mode a direct call, in cluster
 * mode a gRPC client with the same shape.
 */
export interface RecoveryPort {
  /**
   * Starts re-sending the endpoint's failed deliveries of messages created at or after `since`.
   * @throws InvalidError (`since` in the future or before retention), NotFoundError (no such
   * endpoint), ConflictError (not active, or a recovery already runs on it).
   */
  start(t: Tenant, endpointId: EndpointId, since: number): Promise<Recovery>;
  /** @returns the recovery, or null when the endpoint has none with that id. */
  get(t: Tenant, endpointId: EndpointId, id: RecoveryId): Promise<Recovery | null>;
}
