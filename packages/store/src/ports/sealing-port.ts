/** A key of the ring that seals signing secrets has sealed something here: its check value. */
export interface KeyCheck {
  keyId: string;
  /** A known text sealed with that key (see packages/platform/src/sealing-keys.ts). */
  sealed: string;
  createdAt: number;
}

/**
 * Every stored column that holds a sealed secret, and what its sealing is bound to (the
 * owner id passed to `SecretBox.seal`). `secrets reseal` walks each of them before it
 * retires a key, so a column missing here is lost at the next rotation: a new sealed column
 * is added here, both adapters must then walk it (they map every entry), and
 * sealed-columns.test.ts fails on a SQLite column holding sealed text that is not listed.
 */
export const SEALED_COLUMNS = {
  /** Endpoints' signing secrets (current and rotated-out), bound to the endpoint id. */
  endpoint_secrets: { sqlite: 'endpoint_secrets.sealed', mongo: 'endpoints.secrets.sealed', boundTo: 'endpoint id' },
  /** Endpoints' custom headers (their values, sealed together), bound to the endpoint id. */
  endpoint_headers: { sqlite: 'endpoints.headers', mongo: 'endpoints.headers.sealed', boundTo: 'endpoint id' },
  /** Endpoints' client certificate keys (mutual TLS), bound to the endpoint id. */
  endpoint_tls_keys: { sqlite: 'endpoints.tls', mongo: 'endpoints.tls.sealedKey', boundTo: 'endpoint id' },
  /** Endpoints' OAuth client secrets, bound to the endpoint id. */
  endpoint_auth_secrets: { sqlite: 'endpoints.auth', mongo: 'endpoints.auth.sealedSecret', boundTo: 'endpoint id' },
  /** Webhook alert targets' signing secrets, bound to the target id. */
  alert_target_secrets: { sqlite: 'alert_targets.sealed_secret', mongo: 'alert_targets.sealedSecret', boundTo: 'alert target id' },
} as const;
export type SealedColumn = keyof typeof SEALED_COLUMNS;

/** The sealed texts of one owner (an endpoint, an alert target) in one sealed column, as re-sealing walks them. */
export interface SealedSecrets {
  /** What the texts are bound to (see SEALED_COLUMNS). */
  ownerId: string;
  sealed: string[];
}

/**
 * What the key ring needs of the store, across tenants: the check values that tell a wrong
 * WIREHOOK_SECRET_KEY at start, and a walk over every sealed secret of every sealed column
 * to re-seal them with the newest key (admin `secrets reseal`).
 */
export interface SealingRepo {
  keyChecks(): Promise<KeyCheck[]>;
  /** Adds the check unless one for the key exists (the first stays). */
  addKeyCheck(check: KeyCheck): Promise<void>;
  removeKeyCheck(keyId: string): Promise<void>;
  /** Owners with sealed texts in `column`, by owner id, after `afterOwnerId`. */
  sealedSecrets(column: SealedColumn, afterOwnerId: string | null, limit: number): Promise<SealedSecrets[]>;
  /**
   * Replaces one sealed text of the owner in `column`, only if it still reads `expected` (a
   * rotation meanwhile wins). @returns whether it was replaced.
   */
  reseal(column: SealedColumn, ownerId: string, expected: string, sealed: string): Promise<boolean>;
}
