import express, { type Router } from 'express';
import { ConflictError, NotFoundError, parseInput, trialSendBody } from '@wirehook/core';
import { authOf, catalogRulesOf, endpointInScope, requireScope } from '@wirehook/http-api';
import type { PortalDeps } from '../deps.ts';

/**
 * What only the page does with an endpoint, beside the /v1 routes: show its current signing
 * secret, and send it a test message.
 */
export function endpointExtrasRouter(deps: Pick<PortalDeps, 'store' | 'clock' | 'secretBox' | 'intake'>): Router {
  const { store, clock, secretBox } = deps;
  const router = express.Router();

  // Shown on request (the page hides it until "Reveal"); the API shows a secret only at create and rotate.
  router.get('/endpoints/:id/secret', requireScope('endpoints:write'), async (req, res) => {
    const auth = authOf(res);
    const endpoint = await endpointInScope(store, auth, String(req.params['id']));
    const [current] = await store.endpoints.secrets(auth.tenant, endpoint.id, clock.now());
    if (!current) throw new NotFoundError(`endpoint ${endpoint.id} has no signing secret`);
    res.json({ secret: secretBox.open(current.sealed, endpoint.id) });
  });

  // "Send a test message" to one endpoint: not billed, 1,000 per environment and 100 per consumer per UTC day (402 beyond; intake counts both).
  router.post('/endpoints/:id/test', requireScope('endpoints:write'), async (req, res) => {
    const auth = authOf(res);
    const endpoint = await endpointInScope(store, auth, String(req.params['id']));
    if (endpoint.status === 'disabled') throw new ConflictError(`endpoint ${endpoint.id} is disabled; resume it first`);
    const body = parseInput(trialSendBody, req.body, 'request body');
    // A trial send is a message too: an enforcing event type's schema holds for it.
    await catalogRulesOf(store, clock).check(auth.tenant, body.event_type, body.payload);
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

  return router;
}
