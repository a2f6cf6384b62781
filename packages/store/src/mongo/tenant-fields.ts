import type { Environment } from '@wirehook/core';

// A module of its own so that documents.ts and alert-documents.ts (which documents.ts
// re-exports) both take it without importing each other.

/** The fields every tenant-owned document carries; each query on one filters both. */
export interface TenantFields {
  orgId: string;
  env: Environment;
}
