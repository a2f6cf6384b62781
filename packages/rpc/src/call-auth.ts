import { createHash, timingSafeEqual } from 'node:crypto';
import type { Metadata } from '@grpc/grpc-js';

/** The metadata key internal callers put their token in. */
export const AUTH_METADATA_KEY = 'authorization';

/** The metadata value a caller with `token` sends. */
export function bearer(token: string): string {
  return `Bearer ${token}`;
}

/**
 * Whether a call's metadata carries `token`. Compared as SHA-256 digests in constant time,
 * so neither the token's length nor its content leaks through timing.
 */
export function callAuthorized(metadata: Metadata, token: string): boolean {
  const sent = metadata.get(AUTH_METADATA_KEY)[0];
  if (typeof sent !== 'string') return false;
  return timingSafeEqual(digest(sent), digest(bearer(token)));
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
