import type { NextFunction, Request, Response } from 'express';
import { hashPortalToken, NotFoundError, UnauthorizedError, type Scope } from '@wirehook/core';
import { setAuth } from '@wirehook/http-api';
import type { PortalToken } from '@wirehook/store';
import type { PortalDeps } from '../deps.ts';

/** What a portal link lets its holder do: manage their own endpoints, read and re-send their deliveries. */
export const PORTAL_SCOPES: readonly Scope[] = ['endpoints:write', 'logs:read', 'messages:retry'];

/**
 * Resolves `Authorization: Bearer pt_…` (a portal link's token) to its consumer: the caller
 * the gateway's routes read (scoped to that consumer), and the link itself (`linkOf`). The
 * token is the only credential: unknown and expired tokens get 401 with what to do.
 */
export function authenticateLink(deps: Pick<PortalDeps, 'store' | 'clock'>) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const match = /^Bearer\s+(pt_[A-Za-z0-9_-]{1,100})\s*$/.exec(req.get('authorization') ?? '');
    const token = match === null ? null : await deps.store.portalTokens.find(hashPortalToken(match[1]!));
    if (token === null) throw new UnauthorizedError('this portal link is not valid; ask for a new link');
    if (token.expiresAt <= deps.clock.now()) throw new UnauthorizedError('this portal link has expired; ask for a new link');
    const org = await deps.store.orgs.get(token.tenant.orgId);
    if (org === null) throw new NotFoundError('the organization of this link is gone');
    setAuth(res, { tenant: token.tenant, org, scopes: PORTAL_SCOPES, consumerId: token.consumerId });
    res.locals['portalToken'] = token;
    next();
  };
}

/** The link of a request that passed `authenticateLink`. */
export function linkOf(res: Response): PortalToken {
  return res.locals['portalToken'] as PortalToken;
}
