import type { Org, OrgId, PlanName } from '@wirehook/core';

export interface OrgRepo {
  create(org: Org): Promise<Org>;
  get(id: OrgId): Promise<Org | null>;
  /** @returns the updated org, or null when there is none with that id. */
  setPlan(id: OrgId, plan: PlanName): Promise<Org | null>;
}
