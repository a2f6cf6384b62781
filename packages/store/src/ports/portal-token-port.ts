import type { ConsumerId, Tenant } from '@wirehook/core';

/** A portal link's token, as stored: only its hash, with what it opens. */
export interface PortalToken {
  /** SHA-256 of the token (hex); the token itself is never stored. */
  hash: string;
  tenant: Tenant;
  consumerId: ConsumerId;
  /** The only origin that may frame the page; null: none may. */
  frameOrigin: string | null;
  locale: 'ja' | 'en' | null;
  createdAt: number;
  expiresAt: number;
}

/** Portal link tokens: made by the gateway, checked by the portal on every request. */
export interface PortalTokenRepo {
  create(token: PortalToken): Promise<void>;
  /** The token with this hash, expired or not (the portal says which), or null. */
  find(hash: string): Promise<PortalToken | null>;
  /** Removes tokens that expired before `before`. @returns how many. */
  deleteExpired(before: number, batch: number): Promise<number>;
}
