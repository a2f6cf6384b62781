import { cursorPage } from './cursor-page.ts';
import { Router } from 'express';
import {
  createConsumerBody,
  decodeCursor,
  isId,
  newId,
  NotFoundError,
  pageQuery,
  parseInput,
  PLANS,
  PlanLimitError,
  hashPortalToken,
  newPortalToken,
  PORTAL_LINK_TTL_MS,
  portalLinkBody,
  DEFAULT_PAGE_SIZE,
} from '@wirehook/core';
import type { PublicApiDeps } from '../deps.ts';
import { authOf, requireScope } from '../http/auth.ts';
import { pathId } from '../http/path-id.ts';
import { consumerJson } from './presenters.ts';

/** /v1/consumers */
export function consumersRouter(deps: PublicApiDeps): Router {
  const { store, clock } = deps;
  const router = Router();

  router.get('/', requireScope('logs:read'), async (req, res) => {
    const { tenant } = authOf(res);
    const query = parseInput(pageQuery, req.query, 'query');
    const now = clock.now();
    const afterId = query.cursor ? decodeCursor(query.cursor, 'consumer', now, deps.retentionMonths) : undefined;
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    // One extra row tells whether another page exists without a second query.
    const page = cursorPage(await store.consumers.list(tenant, { afterId, limit: limit + 1 }), limit, (c) => c.id, now);
    res.json({ items: page.items.map(consumerJson), next_cursor: page.nextCursor });
  });

  // Added (the spec lists and creates consumers only): one by its id, for a tool or a page that holds a con_ id
  // and needs its external_id (what a message names) — `wirehook trigger --consumer con_…`.
  router.get('/:id', requireScope('logs:read'), async (req, res) => {
    const { tenant } = authOf(res);
    const id = pathId(req);
    const consumer = isId('consumer', id) ? await store.consumers.get(tenant, id) : null;
    if (!consumer) throw new NotFoundError(`consumer ${id} not found`);
    res.json(consumerJson(consumer));
  });

  router.post('/', requireScope('consumers:write'), async (req, res) => {
    const { tenant } = authOf(res);
    const body = parseInput(createConsumerBody, req.body, 'request body');
    const consumer = await store.consumers.create(tenant, {
      id: newId('consumer', clock),
      externalId: body.external_id,
      name: body.name ?? null,
      createdAt: clock.now(),
    });
    res.status(201).json(consumerJson(consumer));
  });

  router.post('/:id/portal', requireScope('endpoints:write'), async (req, res) => {
    const { tenant, org } = authOf(res);
    const body = parseInput(portalLinkBody, req.body ?? {}, 'request body');
    const id = pathId(req);
    const consumer = isId('consumer', id) ? await store.consumers.get(tenant, id) : null;
    if (!consumer) throw new NotFoundError(`consumer ${id} not found`);
    if (!PLANS[org.plan].portal) {
      throw new PlanLimitError('portal links are not part of the Free plan; upgrade to Starter or above');
    }
    const token = newPortalToken();
    const now = clock.now();
    const expiresAt = now + PORTAL_LINK_TTL_MS;
    await store.portalTokens.create({
      hash: hashPortalToken(token),
      tenant,
      consumerId: consumer.id,
      frameOrigin: body.frame_origin ?? null,
      locale: body.locale ?? null,
      createdAt: now,
      expiresAt,
    });
    // The token in the path: the portal must read it on the page request itself, to answer with
    // the link's frame-ancestors before any script runs. The page then drops it from the address bar.
    res.status(201).json({ url: `${deps.portalPublicUrl.replace(/\/+$/, '')}/l/${token}`, expires_at: expiresAt });
  });

  return router;
}
