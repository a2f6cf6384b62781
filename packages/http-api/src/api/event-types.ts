import { Router } from 'express';
import { createEventTypeBody, ForbiddenError, parseInput } from '@wirehook/core';
import type { ApiDeps } from '../deps.ts';
import { authOf, requireScope } from '../http/auth.ts';
import { eventTypeJson } from './presenters.ts';

/** /v1/event-types; the portal serves it too, under its link's token (services/portal). */
export function eventTypesRouter(deps: Pick<ApiDeps, 'store' | 'clock'>): Router {
  const { store, clock } = deps;
  const router = Router();

  // Any key of the environment may list event types: no scope.
  router.get('/', async (_req, res) => {
    const items = await store.eventTypes.list(authOf(res).tenant);
    res.json({ items: items.map(eventTypeJson) });
  });

  router.post('/', requireScope('endpoints:write'), async (req, res) => {
    // The registry is the sender's: a portal link (one consumer) reads it, never writes it.
    if (authOf(res).consumerId !== null) throw new ForbiddenError('a portal link cannot do this');
    const body = parseInput(createEventTypeBody, req.body, 'request body');
    const created = await store.eventTypes.create(authOf(res).tenant, {
      name: body.name,
      description: body.description ?? null,
      archivedAt: null,
      createdAt: clock.now(),
    });
    res.status(201).json(eventTypeJson(created));
  });

  return router;
}
