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

/** Most enforcing event types `enforcing` returns (a tenant with more has the first that many by name enforced). */
export const EVENT_TYPES_ENFORCING_CAP = 1_000;

/**
 * Most earlier versions `versions` returns, and most kept: an update that keeps one more removes
 * those past it (one, in the steady state), so an event type's history is bounded however often
 * its schema changes.
 */
export const EVENT_TYPE_VERSIONS_PAGE = 100;

export interface EventTypeRepo {
  /**
   * @throws ConflictError when the name exists in the tenant; InvalidError when the tenant
   * already has `max` event types.
   */
  create(t: Tenant, eventType: EventType, max: number): Promise<EventType>;
  /** Ordered by name; without schemas and examples (get has them). */
  list(t: Tenant): Promise<EventTypeSummary[]>;
  /** One event type by name, with its schema and examples; null when there is none. */
  get(t: Tenant, name: string): Promise<EventType | null>;
  /**
   * Applies `patch` at `now` to the event type as the caller read it (`expectedRev`) and
   * returns it as it is then; null when there is none. A schema that differs from the current one
   * (as JSON) is a new version: the current one is kept among the versions (the newest
   * EVENT_TYPE_VERSIONS_PAGE of them; older ones are removed). Any change in between
   * (another PATCH) answers ConflictError: what the caller checked is what is stored.
   */
  update(t: Tenant, name: string, patch: EventTypePatch, now: number, expectedRev: number): Promise<EventType | null>;
  /** Earlier versions of the event type, newest first, at most EVENT_TYPE_VERSIONS_PAGE (never the current one). */
  versions(t: Tenant, name: string): Promise<EventTypeVersion[]>;
  /**
   * The tenant's event types with `validation: enforce` (name and version), at most
   * EVENT_TYPES_ENFORCING_CAP: which names the intake checks, read from an index of those alone.
   */
  enforcing(t: Tenant): Promise<{ name: string; version: number }[]>;
  /** Event types with their schemas, by name after `after`, at most `limit`: the catalog's OpenAPI export, a page at a time. */
  page(t: Tenant, after: string | null, limit: number): Promise<EventType[]>;
}
