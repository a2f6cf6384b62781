import { setTimeout as sleep } from 'node:timers/promises';
import { Router } from 'express';
import {
  newNoticeId,
  noticeTimestamp,
  alertConditionsPatch,
  createAlertTargetBody,
  DEFAULT_ALERT_CONDITIONS,
  ForbiddenError,
  InvalidError,
  isId,
  newId,
  newSigningSecret,
  NotFoundError,
  parseInput,
  RateLimitedError,
  type AlertNotice,
  type AlertTargetId,
  type AlertTestResponse,
  type OrgId,
  type Tenant,
} from '@wirehook/core';
import { checkEndpointUrl } from '@wirehook/egress';
import { MAX_ALERT_TARGETS_PER_ENV, type AlertTarget } from '@wirehook/store';
import type { PublicApiDeps } from '../deps.ts';
import { authOf, requireScope } from '../http/auth.ts';
import { alertTargetJson } from './presenters.ts';

/**
 * /v1/alert-conditions: the failure-notification conditions (the spec leaves them to a
 * dashboard; this is its API), one set per environment of the organization: a key reads and
 * changes only its own environment's, and they apply to that environment's notices (a
 * test key must not mute live alerting). /v1/alert-targets: where notices go — each target
 * belongs to the environment of the key that made it and receives only that environment's
 * notices; a key reads and changes only its own environment's targets.
 */
/** How long a test notice's answer waits for the engine's first try (its sends are bounded at 10 s). */
const TEST_WAIT_MS = 15_000;
const TEST_POLL_MS = 250;
const TESTS_PER_TARGET_PER_MINUTE = 5;
const TESTS_PER_ENVIRONMENT_PER_MINUTE = 20;

export function alertsRouter(deps: PublicApiDeps): Router {
  const { store, clock } = deps;
  const router = Router();
  /** The environment's target `id`, read alone (not the list): another environment's is not found. */
  const envTarget = async (orgId: OrgId, tenant: Tenant, id: string): Promise<AlertTarget> => {
    const target = isId('alertTarget', id) ? await store.alerts.target(orgId, id as AlertTargetId) : null;
    if (!target || target.env !== tenant.env) throw new NotFoundError(`alert target ${id} not found`);
    return target;
  };

  router.get('/alert-conditions', requireScope('logs:read'), async (_req, res) => {
    const { tenant } = orgOnly(res);
    res.json((await store.alerts.conditions(tenant)) ?? DEFAULT_ALERT_CONDITIONS);
  });

  router.put('/alert-conditions', requireScope('endpoints:write'), async (req, res) => {
    const { tenant } = orgOnly(res);
    const patch = parseInput(alertConditionsPatch, req.body, 'request body');
    const current = (await store.alerts.conditions(tenant)) ?? DEFAULT_ALERT_CONDITIONS;
    // A partial body changes only what it names, in the key's environment only.
    const next = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
    await store.alerts.setConditions(tenant, next, clock.now());
    res.json(next);
  });

  // Targets: where notices go. Their URLs follow the endpoint URL rules (https, 443/8443, the SSRF guard).
  router.post('/alert-targets', requireScope('endpoints:write'), async (req, res) => {
    const { tenant } = orgOnly(res);
    const body = parseInput(createAlertTargetBody, req.body, 'request body');
    if (body.type === 'email' && !deps.emailConfigured) {
      throw new InvalidError('type: e-mail targets need SMTP_URL (and ALERT_EMAIL_FROM) set on the server; none is configured');
    }
    if (body.type !== 'email') await checkEndpointUrl(body.url, { policy: deps.addressPolicy, lookup: deps.lookup });
    const id = newId('alertTarget', clock);
    // Webhook notices are signed like deliveries (Standard Webhooks): the secret is shown once, here.
    const secret = body.type === 'webhook' ? newSigningSecret() : null;
    // Capped per environment (422 beyond, like the 20 endpoints per consumer): each target is a
    // send of every notice, and the outbox's fair share is per organization.
    const target = await store.alerts.createTarget(
      tenant,
      {
        id,
        type: body.type,
        url: body.type === 'email' ? null : body.url,
        address: body.type === 'email' ? body.address : null,
        sealedSecret: secret === null ? null : deps.secretBox.seal(secret, id),
        createdAt: clock.now(),
      },
      MAX_ALERT_TARGETS_PER_ENV,
    );
    // The one time a chat URL (its own credential) is shown whole.
    res.status(201).json({ ...alertTargetJson(target), ...(target.type === 'chat' ? { url: target.url ?? '' } : {}), ...(secret === null ? {} : { secret }) });
  });

  router.get('/alert-targets', requireScope('logs:read'), async (_req, res) => {
    const { tenant } = orgOnly(res);
    res.json({ items: (await store.alerts.targets(tenant)).map(alertTargetJson) });
  });

  router.get('/alert-targets/:id', requireScope('logs:read'), async (req, res) => {
    const { org, tenant } = orgOnly(res);
    const id = String(req.params['id']);
    const target = await envTarget(org.id, tenant, id);
    const recent = await store.alerts.noticeAttempts(org.id, target.id, 20);
    res.json({
      ...alertTargetJson(target),
      recent: recent.map((a) => ({
        notice_id: a.noticeId,
        type: a.type,
        at: a.at,
        response_status: a.responseStatus,
        error: a.error,
        duration_ms: a.durationMs,
      })),
    });
  });

  // A sample notice, sent now by the alerting engine as any notice is (its next tick, a second
  // away), so a target can be checked without breaking an endpoint. The answer waits for the
  // first try and shows it: a wrong URL or a refusing receiver shows at once.
  router.post('/alert-targets/:id/test', requireScope('endpoints:write'), async (req, res) => {
    const { org, tenant } = orgOnly(res);
    const id = String(req.params['id']);
    const target = await envTarget(org.id, tenant, id);
    // Bounded: each test holds a request up to 15 s and a send slot of the alerting engine up to
    // 10 s (a target that hangs), and an e-mail target's address is whatever the sender typed.
    for (const [bucket, limit, per] of [
      [`alert-test:${tenant.orgId}:${tenant.env}:${target.id}`, TESTS_PER_TARGET_PER_MINUTE, 'target'],
      [`alert-test:${tenant.orgId}:${tenant.env}`, TESTS_PER_ENVIRONMENT_PER_MINUTE, 'environment'],
    ] as const) {
      // Redis away: let it through, as the API's own limit does.
      const verdict = await deps.rateLimiter.hit(bucket, limit).catch(() => null);
      if (verdict && !verdict.allowed) {
        throw new RateLimitedError(`at most ${limit} test notices a minute per ${per}; retry in ${verdict.retryAfterSeconds} s`, verdict.retryAfterSeconds);
      }
    }
    let gone = false;
    req.on('close', () => (gone = true));
    const now = clock.now();
    const noticeId = newNoticeId();
    const body: AlertNotice = {
      type: 'alert.test',
      timestamp: noticeTimestamp(now),
      data: {
        environments: [tenant.env],
        endpoints: [],
        summary: `This is a test notice from Wirehook for the ${tenant.env} environment: this target receives its failure notices.`,
      },
    };
    await store.alerts.queueNotice({ id: noticeId, orgId: org.id, targetId: target.id, type: 'alert.test', body: JSON.stringify(body), createdAt: now });
    const deadline = performance.now() + TEST_WAIT_MS;
    let attempt: AlertTestResponse['attempt'] = null;
    while (attempt === null && !gone && performance.now() < deadline) {
      await sleep(TEST_POLL_MS);
      const tried = (await store.alerts.noticeAttempts(org.id, target.id, 20)).find((a) => a.noticeId === noticeId);
      if (tried) {
        attempt = {
          notice_id: noticeId,
          type: tried.type,
          at: tried.at,
          response_status: tried.responseStatus,
          error: tried.error,
          duration_ms: tried.durationMs,
        };
      }
    }
    res.json({ notice_id: noticeId, attempt } satisfies AlertTestResponse);
  });

  router.delete('/alert-targets/:id', requireScope('endpoints:write'), async (req, res) => {
    const { tenant } = orgOnly(res);
    const id = String(req.params['id']);
    if (!isId('alertTarget', id) || !(await store.alerts.deleteTarget(tenant, id as AlertTargetId))) throw new NotFoundError(`alert target ${id} not found`);
    res.status(204).end();
  });

  return router;
}

/** The organization's settings are the sender's: a portal link (one consumer) has none. */
function orgOnly(res: Parameters<typeof authOf>[0]) {
  const auth = authOf(res);
  if (auth.consumerId !== null) throw new ForbiddenError('a portal link cannot do this');
  return auth;
}
