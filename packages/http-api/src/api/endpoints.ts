import { cursorPage } from './cursor-page.ts';
import { Router, type Response } from 'express';
import {
  createEndpointBody,
  decodeCursor,
  ENDPOINTS_PAGE_SIZE,
  type EndpointId,
  endpointStatsQuery,
  DEFAULT_RETRY_POLICY,
  isId,
  isRetained,
  listEndpointsQuery,
  monthStart,
  newSigningSecret,
  InvalidError,
  NotFoundError,
  parseInput,
  patchEndpointBody,
  recoverBody,
  simulateTransformationBody,
  storedTransformation,
  readEndpointTls,
  sealEndpointAuth,
  sealEndpointHeaders,
  sealEndpointTls,
  type CompatSignature,
  type Endpoint,
  type RecoveryId,
  type Tenant,
  MAX_LIVE_SECRETS,
  OLD_SECRET_VALIDITY_MS,
  RECENT_ATTEMPTS,
} from '@wirehook/core';
import { checkEndpointUrl } from '@wirehook/egress';
import type { EndpointPatch } from '@wirehook/store';
import type { ApiDeps } from '../deps.ts';
import { authOf, endpointInScope, outOfScope, requireScope } from '../http/auth.ts';
import { pathId } from '../http/path-id.ts';
import { endpointStats } from './endpoint-stats.ts';
import { throughputNow } from './endpoint-throughput.ts';
import { createEndpoint } from './new-endpoint.ts';
import { simulateTransformation } from './transformation-simulation.ts';
import { attemptJson, endpointJson, endpointStatsJson, recoveryJson, throughputJson } from './presenters.ts';

/** /v1/endpoints; the portal serves it too, under its link's token (services/portal). */
export function endpointsRouter(
  deps: Pick<
    ApiDeps,
    'store' | 'clock' | 'secretBox' | 'addressPolicy' | 'lookup' | 'intake' | 'recovery' | 'logger' | 'throughput' | 'transforms' | 'retentionMonths'
  >,
): Router {
  const { store, clock, secretBox } = deps;
  const router = Router();
  /** The address rules of endpoint URLs, for `url` and for the token endpoint (`auth.token_url`): errors name the field. */
  const checkUrl = async (url: string, field = 'url') => {
    try {
      await checkEndpointUrl(url, { policy: deps.addressPolicy, lookup: deps.lookup });
    } catch (err) {
      if (field !== 'url' && err instanceof InvalidError && err.message.startsWith('url ')) throw new InvalidError(`${field}${err.message.slice(3)}`);
      throw err;
    }
  };

  async function load(_tenant: Tenant, res: Response, id: string): Promise<Endpoint> {
    const endpoint = await endpointInScope(store, authOf(res), id);
    res.locals['endpointId'] = endpoint.id;
    return endpoint;
  }

  router.get('/', requireScope('logs:read'), async (req, res) => {
    const auth = authOf(res);
    const { tenant } = auth;
    const query = parseInput(listEndpointsQuery, req.query, 'query');
    const now = clock.now();
    const afterId = query.cursor ? (decodeCursor(query.cursor, 'endpoint', now, deps.retentionMonths) as EndpointId) : undefined;
    const consumerId = query.consumer_id ?? auth.consumerId ?? undefined;
    if ((consumerId !== undefined && !isId('consumer', consumerId)) || outOfScope(auth, consumerId ?? '')) {
      res.json({ items: [], next_cursor: null }); // no consumer can have this id
      return;
    }
    // Not in the spec (it shows `{ items }` alone): pages of up to 1,000 by id, with a next_cursor
    // for a tenant with more (docs/semantics.md); one extra row tells whether another page exists.
    const limit = query.limit ?? ENDPOINTS_PAGE_SIZE;
    const page = cursorPage(await store.endpoints.list(tenant, { consumerId, afterId, limit: limit + 1 }), limit, (e) => e.id, now);
    res.json({ items: page.items.map(endpointJson), next_cursor: page.nextCursor });
  });

  router.post('/', requireScope('endpoints:write'), async (req, res) => {
    const auth = authOf(res);
    const { tenant } = auth;
    const body = parseInput(createEndpointBody, req.body, 'request body');
    const consumer = isId('consumer', body.consumer_id) && !outOfScope(auth, body.consumer_id) ? await store.consumers.get(tenant, body.consumer_id) : null;
    if (!consumer) throw new NotFoundError(`consumer ${body.consumer_id} not found`);
    await checkUrl(body.url);
    checkHeaderNames(body.headers, body.compat_signature);
    checkAuthorizationHeader(body.headers, body.auth);
    if (body.auth) await checkUrl(body.auth.token_url, 'auth.token_url');
    const { endpoint, secret } = await createEndpoint(deps, tenant, {
      consumerId: consumer.id,
      url: body.url,
      description: body.description ?? null,
      eventTypes: body.event_types ? [...new Set(body.event_types)] : null,
      fixedIp: body.fixed_ip ?? false,
      retry: body.retry ?? { ...DEFAULT_RETRY_POLICY },
      compatSignature: body.compat_signature ?? null,
      ordering: body.ordering ?? 'none',
      rateLimit: body.rate_limit ?? null,
      headers: body.headers ?? null,
      tls: body.tls ? readEndpointTls(body.tls, clock.now()) : null,
      auth: body.auth ?? null,
      transformation: body.transformation ? storedTransformation(body.transformation) : null,
    });
    res.status(201).json({ ...endpointJson(endpoint), secret });
  });

  router.get('/:id', requireScope('logs:read'), async (req, res) => {
    const endpoint = await load(authOf(res).tenant, res, pathId(req));
    const { tenant } = authOf(res);
    const [recent, retrying, recovery, flow] = await Promise.all([
      store.deliveries.recentAttempts(tenant, endpoint.id, RECENT_ATTEMPTS),
      store.deliveries.retryingCount(tenant, endpoint.id),
      store.recoveries.latest(tenant, endpoint.id),
      throughputNow(deps, endpoint.id, clock.now()),
    ]);
    res.json({
      ...endpointJson(endpoint),
      // Inside the retention window only, as every read (retention's job removes the rest later).
      recent: recent.filter((a) => isRetained(a.at, clock.now(), deps.retentionMonths)).map(attemptJson),
      retrying_count: retrying,
      recovery: recovery && recoveryJson(recovery),
      throughput: throughputJson(endpoint, flow, clock.now()),
    });
  });

  router.get('/:id/stats', requireScope('logs:read'), async (req, res) => {
    const { tenant } = authOf(res);
    // Input before existence (docs/semantics.md): a bad window is 422 whichever the endpoint.
    const { window } = parseInput(endpointStatsQuery, req.query, 'query');
    const endpoint = await load(tenant, res, pathId(req));
    res.json(endpointStatsJson(await endpointStats(store, tenant, endpoint, clock.now(), window)));
  });

  router.patch('/:id', requireScope('endpoints:write'), async (req, res) => {
    const { tenant } = authOf(res);
    const current = await load(tenant, res, pathId(req));
    const body = parseInput(patchEndpointBody, req.body, 'request body');
    if (body.url !== undefined && body.url !== current.url) await checkUrl(body.url);
    // Switching to fixed addresses needs some: with none configured every attempt would fail
    // in the relay and spend the delivery's retries (RELAY_SOURCE_IPS, GET /v1/egress-ips).
    if (body.fixed_ip === true && !current.fixedIp && !(await store.egressIps.list(clock.now())).some((a) => a.retiringAt === null)) {
      throw new InvalidError('fixed_ip: no fixed source addresses are configured (GET /v1/egress-ips lists none), so it cannot be switched on');
    }
    if (body.tls && current.type === 'listen') {
      throw new InvalidError('tls: a listener endpoint is reached over the `wirehook listen` connection, never with a client certificate');
    }
    if (body.auth && current.type === 'listen') {
      throw new InvalidError('auth: a listener endpoint is reached over the `wirehook listen` connection, never with an OAuth token');
    }
    const headers = body.headers === undefined ? (current.headers?.shown ?? null) : body.headers;
    checkHeaderNames(headers, body.compat_signature === undefined ? current.compatSignature : body.compat_signature);
    checkAuthorizationHeader(headers, body.auth === undefined ? current.auth : body.auth);
    checkTokensStayAtTheirOrigin(current, body);
    if (body.auth && body.auth.token_url !== current.auth?.tokenUrl) await checkUrl(body.auth.token_url, 'auth.token_url');
    const patch: EndpointPatch = {
      auth: body.auth === undefined ? undefined : body.auth && sealEndpointAuth(secretBox, current.id, body.auth, current.auth),
      headers: body.headers === undefined ? undefined : body.headers && sealEndpointHeaders(secretBox, current.id, body.headers),
      tls: body.tls === undefined ? undefined : body.tls && sealEndpointTls(secretBox, current.id, readEndpointTls(body.tls, clock.now())),
      transformation: body.transformation === undefined ? undefined : body.transformation && storedTransformation(body.transformation),
      url: body.url,
      description: body.description,
      eventTypes: body.event_types === undefined ? undefined : body.event_types && [...new Set(body.event_types)],
      retry: body.retry === undefined ? undefined : (body.retry ?? { ...DEFAULT_RETRY_POLICY }),
      compatSignature: body.compat_signature,
      ordering: body.ordering,
      rateLimit: body.rate_limit,
      fixedIp: body.fixed_ip,
      status: body.status,
    };
    // a Retry-After hold was the old address's, or is moot once resumed (docs/semantics.md);
    // a changed rate limit spaces again what the old one put off.
    if ((body.url !== undefined && body.url !== current.url) || (body.status === 'active' && current.status !== 'active')) patch.endHoldAt = clock.now();
    if (body.rate_limit !== undefined && body.rate_limit !== (current.rateLimit ?? null)) patch.respaceAt = clock.now();
    if (body.status !== undefined) {
      const now = clock.now();
      patch.changedAt = now;
      // The resume's release is recorded with the change (a crash before releaseHeld leaves it
      // to the walk); "held messages of this month and last month are sent together".
      if (body.status === 'active') patch.releaseHeldSince = monthStart(now, 1);
    }
    // Leaving `disabled` (to active or paused) clears the reason and the failure streak.
    if (body.status !== undefined && current.status === 'disabled') {
      patch.disabledReason = null;
      patch.failingSince = null;
    }
    const updated = await store.endpoints.update(tenant, current.id, patch);
    if (!updated) throw new NotFoundError(`endpoint ${current.id} not found`);
    // Every PATCH to active releases (not only a change): a resume whose release failed (intake
    // unreachable) is repaired by sending the PATCH again. With nothing held it changes nothing.
    if (body.status === 'active' && updated.status === 'active') await deps.intake.releaseHeld(tenant, updated.id);
    // A pause stops the endpoint's recovery at once (its worker would also find out at its next step).
    if (updated.status === 'paused') await store.recoveries.stop(tenant, updated.id, clock.now());
    // With its throughput, as GET shows it: a changed rate_limit is seen at once.
    res.json({ ...endpointJson(updated), throughput: throughputJson(updated, await throughputNow(deps, updated.id, clock.now()), clock.now()) });
  });

  router.delete('/:id', requireScope('endpoints:write'), async (req, res) => {
    const { tenant } = authOf(res);
    // Through the same scope check as every route (a portal link: its consumer's endpoints only).
    const endpoint = await load(tenant, res, pathId(req));
    if (!(await store.endpoints.delete(tenant, endpoint.id))) throw new NotFoundError(`endpoint ${endpoint.id} not found`);
    await store.recoveries.stop(tenant, endpoint.id, clock.now());
    res.status(204).end();
  });

  // Runs code (the endpoint's, or the caller's) as a send would, sending nothing: part of editing it.
  router.post('/:id/transformation/simulate', requireScope('endpoints:write'), async (req, res) => {
    const { tenant } = authOf(res);
    const endpoint = await load(tenant, res, pathId(req));
    const body = parseInput(simulateTransformationBody, req.body, 'request body');
    const started = performance.now();
    res.json(await simulateTransformation(deps.transforms, tenant, endpoint, body, clock.now(), () => performance.now() - started));
  });

  // Scope before body: the body is read only once the key may recover.
  router.post('/:id/recover', requireScope('messages:retry'), async (req, res) => {
    const { tenant } = authOf(res);
    const endpoint = await load(tenant, res, pathId(req));
    const body = parseInput(recoverBody, req.body, 'request body');
    const recovery = await deps.recovery.start(tenant, endpoint.id, body.since);
    res.status(202).json(recoveryJson(recovery));
  });

  router.get('/:id/recoveries/:recoveryId', requireScope('logs:read'), async (req, res) => {
    const { tenant } = authOf(res);
    const endpoint = await load(tenant, res, pathId(req));
    const id = String(req.params['recoveryId']);
    const recovery = isId('recovery', id) ? await deps.recovery.get(tenant, endpoint.id, id as RecoveryId) : null;
    if (!recovery) throw new NotFoundError(`recovery ${id} not found`);
    res.json(recoveryJson(recovery));
  });

  router.post('/:id/rotate-secret', requireScope('endpoints:write'), async (req, res) => {
    const { tenant } = authOf(res);
    const endpoint = await load(tenant, res, pathId(req));
    const now = clock.now();
    const secret = newSigningSecret();
    const rotated = await store.endpoints.rotateSecret(
      tenant,
      endpoint.id,
      { sealed: secretBox.seal(secret, endpoint.id), createdAt: now, expiresAt: null },
      now,
      now + OLD_SECRET_VALIDITY_MS,
      MAX_LIVE_SECRETS,
    );
    if (!rotated) throw new NotFoundError(`endpoint ${endpoint.id} not found`);
    res.json({ secret });
  });

  return router;
}

/** With OAuth client credentials, Authorization carries the token: a custom header may not take it. */
function checkAuthorizationHeader(headers: Readonly<Record<string, string>> | null | undefined, auth: unknown): void {
  if (headers && auth && Object.hasOwn(headers, 'authorization')) {
    throw new InvalidError('headers.authorization: the endpoint has OAuth client credentials (auth), whose access token is sent as Authorization');
  }
}

/** A custom header may not take the name of the endpoint's compatible-signature header: that one is Wirehook's. */
function checkHeaderNames(headers: Readonly<Record<string, string>> | null | undefined, compat: CompatSignature | null | undefined): void {
  if (!headers || !compat) return;
  const taken = compat.header.toLowerCase();
  if (Object.hasOwn(headers, taken)) {
    throw new InvalidError(`headers.${taken}: ${compat.header} is the endpoint's compat_signature header, set by Wirehook`);
  }
}

/**
 * An endpoint's OAuth tokens go only to the origin its client secret was given for: a PATCH that
 * moves `url` to another origin keeps `auth` only with its `client_secret` given again (or
 * removes it). Without this, a key or portal session that may change the URL but can never read
 * the secret would have the receiver's live tokens sent to a host of its choosing.
 * @throws InvalidError naming auth.client_secret.
 */
function checkTokensStayAtTheirOrigin(
  current: Endpoint,
  body: { url?: string | undefined; auth?: { client_secret?: string | undefined } | null | undefined },
): void {
  if (current.auth === null || current.auth === undefined || body.url === undefined || body.auth === null) return;
  const from = new URL(current.url).origin;
  const to = new URL(body.url).origin;
  if (from === to || body.auth?.client_secret !== undefined) return;
  throw new InvalidError(
    `auth.client_secret: required when url moves to another origin (${from} → ${to}): the stored secret's tokens go only to the origin it was given for; ` +
      'give auth again with its client_secret, or null',
  );
}
