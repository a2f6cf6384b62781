import type { Consumer, ConsumerId, Tenant } from '@wirehook/core';

/** A page request: items strictly older than the item `afterId` (newest first). */
export interface PageRequest {
  afterId?: string;
  limit: number;
}

export interface ConsumerRepo {
  /** @throws ConflictError when the tenant already has a consumer with this external id. */
  create(t: Tenant, consumer: Omit<Consumer, 'endpointCount'>): Promise<Consumer>;
  get(t: Tenant, id: ConsumerId): Promise<Consumer | null>;
  getByExternalId(t: Tenant, externalId: string): Promise<Consumer | null>;
  /** Newest first (by id, compared as text). */
  list(t: Tenant, page: PageRequest): Promise<Consumer[]>;
}
