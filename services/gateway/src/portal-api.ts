import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { ConflictError, NotFoundError, parseInput, trialSendBody, type DeliveryStatus, type MessageId, type MessageRowResponse } from '@wirehook/core';
import type { PortalToken } from '@wirehook/store';
import type { GatewayDeps } from './deps.ts';
import { endpointsRouter } from './api/endpoints.ts';
import { eventTypesRouter } from './api/event-types.ts';
import { messagesRouter } from './api/messages.ts';
import { consumerJson } from './api/presenters.ts';
import { authenticatePortal, authOf, endpointInScope, requireScope } from './http/auth.ts';
import { notFound } from './http/errors.ts';
import { rateLimit } from './http/rate-limit.ts';

/**
 * The portal page's JSON API: the very /v1 routes (same zod schemas, same checks, same
 * error bodies), authenticated by the link's token instead of an API key, and scoped by it
 * to one consumer: only that consumer's endpoints, messages and deliveries exist for it.
 * Plus what only the page needs: the session, and showing the current signing secret.
 */
export function portalApi(deps: GatewayDeps): Router {
  const { store, clock, secretBox } = deps;
  const api = express.Router();
  api.use(authenticatePortal(deps), rateLimit(deps));

  api.get('/session', async (_req, res) => {
    const auth = authOf(res);
    const token = res.locals['portalToken'] as PortalToken;
    const consumer = await store.consumers.get(auth.tenant, auth.consumerId!);
    if (!consumer) throw new NotFoundError('the consumer of this link is gone');
    res.json({
      consumer: consumerJson(consumer),
      environment: auth.tenant.env,
      locale: token.locale,
      expires_at: token.expiresAt,
      features: { recovery: true },
    });
  });

  // Shown on request (the page hides it until "Reveal"); the API shows a secret only at create and rotate.
  api.get('/endpoints/:id/secret', requireScope('endpoints:write'), async (req, res) => {
    const auth = authOf(res);
    const endpoint = await endpointInScope(store, auth, String(req.params['id']));
    const [current] = await store.endpoints.secrets(auth.tenant, endpoint.id, clock.now());
    if (!current) throw new NotFoundError(`endpoint ${endpoint.id} has no signing secret`);
    res.json({ secret: secretBox.open(current.sealed, endpoint.id) });
  });

  // "Send a test message" to one endpoint: not billed, 1,000 per environment and 100 per consumer per UTC day (402 beyond; intake counts both).
  api.post('/endpoints/:id/test', requireScope('endpoints:write'), async (req, res) => {
    const auth = authOf(res);
    const endpoint = await endpointInScope(store, auth, String(req.params['id']));
    if (endpoint.status === 'disabled') throw new ConflictError(`endpoint ${endpoint.id} is disabled; resume it first`);
    const body = parseInput(trialSendBody, req.body, 'request body');
    const consumer = await store.consumers.get(auth.tenant, endpoint.consumerId);
    if (!consumer) throw new NotFoundError(`endpoint ${endpoint.id} not found`);
    const result = await deps.intake.send({
      tenant: auth.tenant,
      org: auth.org,
      body: { consumer: consumer.externalId, event_type: body.event_type, payload: body.payload },
      idempotencyKey: null,
      trialEndpointId: endpoint.id,
    });
    res.status(202).json({ id: result.id, deliveries: result.deliveries });
  });

  api.use('/endpoints', endpointsRouter(deps));
  api.use('/event-types', eventTypesRouter(deps));
  api.get('/messages', deliveryStatusesOnRows(deps));
  api.use(messagesRouter(deps));
  api.use(notFound);
  return api;
}

/** A message row of the portal's list: the API's, with how many of its deliveries are in each status. */
export type PortalMessageRow = MessageRowResponse & { delivery_statuses: Partial<Record<DeliveryStatus, number>> };

/**
 * The page shows a message's deliveries by status ("Delivered 1 · Failed 1"; none: "no
 * endpoint matched"): the message status alone says `failed` for a message one endpoint took,
 * and `success` for one no endpoint took. Adds `delivery_statuses` to the rows of the list the
 * /v1 route answers (a page is at most 100 rows; a row with no delivery, null `endpoint_url`,
 * is not read again).
 */
function deliveryStatusesOnRows(deps: GatewayDeps) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      res.json = json;
      const items = (body as { items?: MessageRowResponse[] } | null)?.items;
      if (res.statusCode !== 200 || !Array.isArray(items)) return json(body);
      withStatuses(deps, authOf(res).tenant, items)
        .then((rows) => json({ ...(body as object), items: rows }))
        .catch(next);
      return res;
    };
    next();
  };
}

async function withStatuses(deps: GatewayDeps, tenant: ReturnType<typeof authOf>['tenant'], items: MessageRowResponse[]): Promise<PortalMessageRow[]> {
  return Promise.all(
    items.map(async (row): Promise<PortalMessageRow> => {
      if (row.endpoint_url === null) return { ...row, delivery_statuses: {} };
      const detail = await deps.store.messages.get(tenant, row.id as MessageId);
      if (detail === null) return { ...row, delivery_statuses: {} };
      const counts: Partial<Record<DeliveryStatus, number>> = {};
      for (const { delivery } of detail.deliveries) counts[delivery.status] = (counts[delivery.status] ?? 0) + 1;
      return { ...row, delivery_statuses: counts };
    }),
  );
}
