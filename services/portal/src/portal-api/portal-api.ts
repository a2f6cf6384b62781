import express, { type Router } from 'express';
import { egressIpsRouter, endpointsRouter, eventTypesRouter, messagesRouter, notFound, rateLimit } from '@wirehook/http-api';
import type { PortalDeps } from '../deps.ts';
import { deliveryStatusesOnRows } from './delivery-statuses.ts';
import { endpointExtrasRouter } from './endpoint-extras.ts';
import { authenticateLink } from './link-auth.ts';
import { sessionRouter } from './session-route.ts';

/**
 * The portal page's JSON API: the very /v1 routes (same zod schemas, same checks, same
 * error bodies), authenticated by the link's token instead of an API key, and scoped by it
 * to one consumer: only that consumer's endpoints, messages and deliveries exist for it.
 * Plus what only the page needs: the session, showing the current signing secret, and test
 * messages; and the message list's rows counted by delivery status. The endpoint stats
 * (/endpoints/{id}/stats) come with the endpoint routes; /egress-ips is the /v1 route as it is.
 */
export function portalApi(deps: PortalDeps): Router {
  const api = express.Router();
  api.use(authenticateLink(deps), rateLimit(deps));
  api.use(sessionRouter(deps));
  // Before the /v1 endpoint routes: these two paths are the page's own.
  api.use(endpointExtrasRouter(deps));
  api.use('/endpoints', endpointsRouter(deps));
  api.use('/event-types', eventTypesRouter(deps));
  // The addresses a fixed_ip endpoint is sent from, for the customer's allowlist (the installation's, no consumer's own).
  api.use('/egress-ips', egressIpsRouter(deps));
  api.get('/messages', deliveryStatusesOnRows(deps));
  api.use(messagesRouter(deps));
  api.use(notFound);
  return api;
}
