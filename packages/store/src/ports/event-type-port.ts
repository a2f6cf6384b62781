import type { EventType, Tenant } from '@wirehook/core';

export interface EventTypeRepo {
  /** @throws ConflictError when the name exists in the tenant. */
  create(t: Tenant, eventType: EventType): Promise<EventType>;
  /** Ordered by name. */
  list(t: Tenant): Promise<EventType[]>;
}
