import express, { type Router } from 'express';
import { ConflictError, NotFoundError, parseInput, trialSendBody } from '@wirehook/core';
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
  api.use(messagesRouter(deps));
  api.use(notFound);
  return api;
}
