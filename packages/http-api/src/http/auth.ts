import { isUtf8 } from 'node:buffer';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import {
  MAX_BODY_BYTES,
  apiKeyEnvironment,
  ForbiddenError,
  hashApiKey,
  isId,
  NotFoundError,
  UnauthorizedError,
  type ConsumerId,
  type Endpoint,
  type Org,
  type Scope,
  type Tenant,
} from '@wirehook/core';
import type { Store } from '@wirehook/store';
import type { ApiDeps } from '../deps.ts';

/** Who is calling: set by `authenticate` for every /v1 request (and the portal's token check, services/portal, for its API). */
export interface AuthContext {
  tenant: Tenant;
  org: Org;
  /** What the caller may do: its API key's scopes, or the portal's. */
  scopes: readonly Scope[];
  /**
   * null: the whole environment (an API key). A consumer id: a portal link's consumer — every
   * route then sees only that consumer's endpoints, messages and deliveries (404 for others).
   */
  consumerId: ConsumerId | null;
}

/** Whether `consumerId` is outside the caller's reach (a portal link for another consumer). */
export function outOfScope(auth: AuthContext, consumerId: string): boolean {
  return auth.consumerId !== null && auth.consumerId !== consumerId;
}

/**
 * The endpoint `id` of the caller's tenant, within its reach (a portal link: its consumer's
 * only). @throws NotFoundError otherwise, the same answer as for an id that does not exist.
 */
export async function endpointInScope(store: Pick<Store, 'endpoints'>, auth: AuthContext, id: string): Promise<Endpoint> {
  const endpoint = isId('endpoint', id) ? await store.endpoints.get(auth.tenant, id) : null;
  if (!endpoint || outOfScope(auth, endpoint.consumerId)) throw new NotFoundError(`endpoint ${id} not found`);
  return endpoint;
}

/** The AuthContext of a request that passed `authenticate`. */
export function authOf(res: Response): AuthContext {
  return res.locals['auth'] as AuthContext;
}

/** Makes `auth` the request's caller, as `authOf` reads it (an authentication middleware's last step). */
export function setAuth(res: Response, auth: AuthContext): void {
  res.locals['auth'] = auth;
}

/**
 * Resolves `Authorization: Bearer sk_…` to its key and org. Missing, malformed, unknown,
 * revoked and expired keys all get the same 401, so a caller learns nothing about which.
 */
export function authenticate(deps: Pick<ApiDeps, 'store' | 'clock'>) {
  return async (req: Request, res: Response, next: NextFunction) => {
    setAuth(res, await apiKeyAuth(deps, req.get('authorization')));
    next();
  };
}

/** The caller an `Authorization` header's API key names (`authenticate`, and the listener connection's upgrade). @throws UnauthorizedError */
export async function apiKeyAuth(deps: Pick<ApiDeps, 'store' | 'clock'>, authorization: string | undefined): Promise<AuthContext> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  const token = match?.[1];
  if (!token || !apiKeyEnvironment(token)) throw new UnauthorizedError();
  const found = await deps.store.apiKeys.findByHash(hashApiKey(token));
  const now = deps.clock.now();
  if (!found || found.key.revokedAt !== null || (found.key.expiresAt !== null && found.key.expiresAt <= now)) {
    throw new UnauthorizedError();
  }
  return { tenant: { orgId: found.org.id, env: found.key.env }, org: found.org, scopes: found.key.scopes, consumerId: null };
}

// Any content type is read as JSON: a client that forgets the header still gets a clear
// answer about its body rather than a confusing "field is required". Its bytes must be UTF-8
// (RFC 8259), whatever the header says: read as UTF-8 anyway, another charset's were stored and
// delivered with U+FFFD where its letters had been.
const jsonBody = express.json({
  limit: MAX_BODY_BYTES,
  type: () => true,
  strict: false,
  // `encoding`: the charset the content type names (UTF-8 when it names none). Another one (UTF-16
  // had been decoded and taken) is refused as bytes that are not UTF-8 are: one rule, RFC 8259's.
  verify: (_req, _res, bytes, encoding) => {
    if (encoding !== 'utf-8' || !isUtf8(bytes)) throw Object.assign(new Error('request body is not UTF-8'), { type: 'charset.unsupported' });
  },
});

/**
 * Refuses with 403 unless the key has `scope`, then reads the JSON body (413 over 1.1 MB,
 * 422 when malformed). Scope comes first so a caller without it learns nothing more.
 */
export function requireScope(scope: Scope): RequestHandler {
  return (req, res, next) => {
    const auth = authOf(res);
    if (!auth.scopes.includes(scope)) {
      throw new ForbiddenError(auth.consumerId === null ? `this API key lacks the scope ${scope}` : 'a portal link cannot do this');
    }
    jsonBody(req, res, next);
  };
}
