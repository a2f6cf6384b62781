import { Router } from 'express';
import type { ApiDeps } from '../deps.ts';
import { egressIpJson } from './presenters.ts';

/** /v1/egress-ips: the addresses fixed_ip endpoints are sent from, as recorded by egressIpSync. */
export function egressIpsRouter(deps: Pick<ApiDeps, 'store' | 'clock'>): Router {
  const router = Router();
  // Any key of the environment may read it (like GET /v1/event-types): the pool is the whole
  // installation's, the same for every tenant, and what a sender tells customers to allowlist.
  router.get('/', async (_req, res) => {
    const items = await deps.store.egressIps.list(deps.clock.now());
    res.json({ items: items.map(egressIpJson) });
  });
  return router;
}
