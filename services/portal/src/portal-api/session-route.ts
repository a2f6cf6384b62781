import express, { type Router } from 'express';
import { NotFoundError } from '@wirehook/core';
import { authOf, consumerJson } from '@wirehook/http-api';
import type { PortalDeps } from '../deps.ts';
import { linkOf } from './link-auth.ts';

/** GET /session: what the page shows first — whose link it is, its language and expiry, what it offers. */
export function sessionRouter(deps: Pick<PortalDeps, 'store'>): Router {
  const router = express.Router();
  router.get('/session', async (_req, res) => {
    const auth = authOf(res);
    const token = linkOf(res);
    const consumer = await deps.store.consumers.get(auth.tenant, auth.consumerId!);
    if (!consumer) throw new NotFoundError('the consumer of this link is gone');
    res.json({
      consumer: consumerJson(consumer),
      environment: auth.tenant.env,
      locale: token.locale,
      expires_at: token.expiresAt,
      features: { recovery: true },
    });
  });
  return router;
}
