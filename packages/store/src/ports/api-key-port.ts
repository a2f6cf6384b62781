import type { ApiKey, KeyId, Org } from '@wirehook/core';

/** An API key together with its org, as authentication needs them. */
export interface KeyWithOrg {
  key: ApiKey;
  org: Org;
}

export interface ApiKeyRepo {
  /** Stores a key by the hash of its clear text; the clear text never reaches the store. */
  create(key: ApiKey, hash: string): Promise<ApiKey>;
  findByHash(hash: string): Promise<KeyWithOrg | null>;
  /** Marks the key revoked at `at` (the first revocation time is kept). Null when unknown. */
  revoke(id: KeyId, at: number): Promise<ApiKey | null>;
}
