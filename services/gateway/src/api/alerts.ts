import { Router } from 'express';
import { alertConditionsPatch, DEFAULT_ALERT_CONDITIONS, ForbiddenError, parseInput } from '@wirehook/core';
import type { GatewayDeps } from '../deps.ts';
import { authOf, requireScope } from '../http/auth.ts';

/**
 * /v1/alert-conditions: the organization's failure-notification conditions (the spec leaves
 * them to a dashboard; this is its API). Keys of either environment see the same settings.
 */
export function alertsRouter(deps: GatewayDeps): Router {
  const { store, clock } = deps;
  const router = Router();

  router.get('/alert-conditions', requireScope('logs:read'), async (_req, res) => {
    const { org } = orgOnly(res);
    res.json((await store.alerts.conditions(org.id)) ?? DEFAULT_ALERT_CONDITIONS);
  });

  router.put('/alert-conditions', requireScope('endpoints:write'), async (req, res) => {
    const { org } = orgOnly(res);
    const patch = parseInput(alertConditionsPatch, req.body, 'request body');
    const current = (await store.alerts.conditions(org.id)) ?? DEFAULT_ALERT_CONDITIONS;
    // A partial body changes only what it names.
    const next = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
    await store.alerts.setConditions(org.id, next, clock.now());
    res.json(next);
  });

  return router;
}

/** The organization's settings are the sender's: a portal link (one consumer) has none. */
function orgOnly(res: Parameters<typeof authOf>[0]) {
  const auth = authOf(res);
  if (auth.consumerId !== null) throw new ForbiddenError('a portal link cannot do this');
  return auth;
}
