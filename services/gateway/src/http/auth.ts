import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import {
  MAX_BODY_BYTES,
  apiKeyEnvironment,
  ForbiddenError,
  hashApiKey,
  UnauthorizedError,
  type ApiKey,
  type Org,
  type Scope,
  type Tenant,
} from '@wirehook/core';
import type { GatewayDeps } from '../deps.ts';

/** Who is calling: set by `authenticate` for every /v1 request. */
export interface AuthContext {
  tenant: Tenant;
  key: ApiKey;
  org: Org;
}

/** The AuthContext of a request that passed `authenticate`. */
export function authOf(res: Response): AuthContext {
  return res.locals['auth'] as AuthContext;
}

/**
 * Resolves `Authorization: Bearer sk_…` to its key and org. Missing, malformed, unknown,
 * revoked and expired keys all get the same 401, so a caller learns nothing about which.
 */
export function authenticate(deps: Pick<GatewayDeps, 'store' | 'clock'>) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    const token = match?.[1];
    if (!token || !apiKeyEnvironment(token)) throw new UnauthorizedError();
    const found = await deps.store.apiKeys.findByHash(hashApiKey(token));
    const now = deps.clock.now();
    if (!found || found.key.revokedAt !== null || (found.key.expiresAt !== null && found.key.expiresAt <= now)) {
      throw new UnauthorizedError();
    }
    const auth: AuthContext = { tenant: { orgId: found.org.id, env: found.key.env }, key: found.key, org: found.org };
    res.locals['auth'] = auth;
    next();
  };
}

// Any content type is read as JSON: a client that forgets the header still gets a clear
// answer about its body rather than a confusing "field is required".
const jsonBody = express.json({ limit: MAX_BODY_BYTES, type: () => true, strict: false });

/**
 * Refuses with 403 unless the key has `scope`, then reads the JSON body (413 over 1.1 MB,
 * 422 when malformed). Scope comes first so a caller without it learns nothing more.
 */
export function requireScope(scope: Scope): RequestHandler {
  return (req, res, next) => {
    if (!authOf(res).key.scopes.includes(scope)) {
      throw new ForbiddenError(`this API key lacks the scope ${scope}`);
    }
    jsonBody(req, res, next);
  };
}
