import type { EventType, EventTypeSummary, EventTypeVersion, Tenant } from '@wirehook/core';

/** What a PATCH of an event type changes; absent fields stay. */
export interface EventTypePatch {
  description?: string | null;
  /** A changed schema (compared as JSON) makes a new version; the one it replaces is kept (versions). */
  schema?: Record<string, unknown> | null;
  examples?: unknown[];
  validation?: 'none' | 'enforce';
  deprecated?: boolean;
}

/** Most earlier versions `versions` returns. */
export const EVENT_TYPE_VERSIONS_PAGE = 100;

export interface EventTypeRepo {
  /** @throws ConflictError when the name exists in the tenant. */
  create(t: Tenant, eventType: EventType): Promise<EventType>;
  /** Ordered by name; without schemas and examples (get has them). */
  list(t: Tenant): Promise<EventTypeSummary[]>;
  /** One event type by name, with its schema and examples; null when there is none. */
  get(t: Tenant, name: string): Promise<EventType | null>;
  /**
   * Applies `patch` at `now` and returns the event type as it is then; null when there is none.
   * A schema that differs from the current one (as JSON) is a new version: the current one is
   * kept among the versions first, then the event type moves on — only from the version it was
   * read at, so two PATCHes never both make version n+1 (the second answers ConflictError).
   */
  update(t: Tenant, name: string, patch: EventTypePatch, now: number): Promise<EventType | null>;
  /** Earlier versions of the event type, newest first, at most EVENT_TYPE_VERSIONS_PAGE (never the current one). */
  versions(t: Tenant, name: string): Promise<EventTypeVersion[]>;
  /** Event types with their schemas, by name after `after`, at most `limit`: the catalog's OpenAPI export, a page at a time. */
  page(t: Tenant, after: string | null, limit: number): Promise<EventType[]>;
}
