import { cursorPage } from './cursor-page.ts';
import { type RequestHandler, Router } from 'express';
import {
  decodeCursor,
  idempotencyKey,
  idTime,
  isId,
  isRetained,
  retentionStart,
  listMessagesQuery,
  NotFoundError,
  pageQuery,
  parseInput,
  sendMessageBody,
  DEFAULT_PAGE_SIZE,
  SEARCH_WINDOW_MS,
} from '@wirehook/core';
import { headerText } from '../http/header-text.ts';
import type { ApiDeps } from '../deps.ts';
import { authOf, outOfScope, requireScope } from '../http/auth.ts';
import { pathId } from '../http/path-id.ts';
import { catalogRulesOf } from './catalog-rules.ts';
import { attemptJson, deliveryJson, messageDetailJson, messageRowJson } from './presenters.ts';

/**
 * POST /v1/messages: its scope check (which reads the body) and its handler — what messagesRouter
 * routes, and what the gateway serves ahead of Express's router (routeAhead), nearly every call.
 */
export function sendMessageRoute(deps: Pick<ApiDeps, 'store' | 'clock' | 'intake'>): RequestHandler[] {
  const { intake } = deps;
  const catalog = catalogRulesOf(deps.store, deps.clock);
  return [
    requireScope('messages:send'),
    async (req, res) => {
      const { tenant, org } = authOf(res);
      const header = req.get('idempotency-key');
      const key = header === undefined ? null : parseInput(idempotencyKey, headerText(header), 'Idempotency-Key');
      const body = parseInput(sendMessageBody, req.body, 'request body');
      // An event type with validation: enforce refuses a payload its schema does not take; nothing is stored.
      await catalog.check(tenant, body.event_type, body.payload);
      const result = await intake.send({ tenant, org, body, idempotencyKey: key });
      res.set('x-usage-month', String(result.usageMonth));
      if (result.replayed) res.set('idempotent-replayed', 'true');
      res.status(202).json({ id: result.id, deliveries: result.deliveries });
    },
  ];
}

/** /v1/messages and /v1/deliveries; the portal serves them too, under its link's token (services/portal). */
export function messagesRouter(deps: Pick<ApiDeps, 'store' | 'clock' | 'intake' | 'retentionMonths'>): Router {
  const { store, clock, intake } = deps;
  const router = Router();

  /** True when `id` is an id of `kind` made inside the retention window. */
  const retainedId = (kind: 'message' | 'delivery', id: string) => {
    const time = isId(kind, id) ? idTime(id) : undefined;
    return time !== undefined && isRetained(time, clock.now(), deps.retentionMonths);
  };

  router.post('/messages', ...sendMessageRoute(deps));

  router.get('/messages', requireScope('logs:read'), async (req, res) => {
    const { tenant, consumerId } = authOf(res);
    const query = parseInput(listMessagesQuery, req.query, 'query');
    const now = clock.now();
    const afterId = query.cursor ? decodeCursor(query.cursor, 'message', now, deps.retentionMonths) : undefined;
    const filtered = query.q !== undefined || query.status !== undefined || query.event_type !== undefined;
    // Never before the retention window: its start is when what lies before it becomes
    // unreadable (404 by id), not when retention's job gets round to removing it.
    const kept = retentionStart(now, deps.retentionMonths);
    const since = Math.max(query.since ?? (filtered ? now - SEARCH_WINDOW_MS : kept), kept);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const { rows, resumeAfterId } = await store.messages.list(tenant, {
      consumerId: consumerId ?? undefined,
      status: query.status,
      eventType: query.event_type,
      q: query.q,
      since,
      afterId,
      limit: limit + 1,
    });
    // A page the store cut short (a filter tested over a long window) goes on where it stopped,
    // however few items it holds: docs/semantics.md, "A page of a filtered list".
    const page = cursorPage(rows, limit, (r) => r.message.id, now, resumeAfterId);
    res.json({ items: page.items.map(messageRowJson), next_cursor: page.nextCursor });
  });

  router.get('/messages/:id', requireScope('logs:read'), async (req, res) => {
    const id = pathId(req);
    const detail = retainedId('message', id) ? await store.messages.get(authOf(res).tenant, id as never) : null;
    if (!detail || outOfScope(authOf(res), detail.consumer.id)) throw new NotFoundError(`message ${id} not found`);
    // Its deliveries go to endpoints of its consumer: one read gives every current URL.
    const endpoints = await store.endpoints.list(authOf(res).tenant, { consumerId: detail.consumer.id });
    res.json(messageDetailJson(detail, new Map(endpoints.map((e) => [e.id, e])), clock.now()));
  });

  // One delivery as the message view shows it (the retry operation takes its id). A portal
  // link sees only its consumer's; another tenant's id is not found, like an unknown one. One
  // bounded read (its newest attempts, not its message's payload and every attempt).
  router.get('/deliveries/:id', requireScope('logs:read'), async (req, res) => {
    const id = pathId(req);
    const auth = authOf(res);
    const view = retainedId('delivery', id) ? await store.deliveries.show(auth.tenant, id as never) : null;
    if (!view || outOfScope(auth, view.consumerId)) throw new NotFoundError(`delivery ${id} not found`);
    const endpoint = await store.endpoints.get(auth.tenant, view.delivery.endpointId);
    res.json(deliveryJson(view.delivery, view.attempts, endpoint ?? undefined, { olderAttempts: view.olderAttempts, now: clock.now() }));
  });

  // A delivery's attempts, newest first, paged: what its `attempts` leaves out.
  router.get('/deliveries/:id/attempts', requireScope('logs:read'), async (req, res) => {
    const id = pathId(req);
    const auth = authOf(res);
    const query = parseInput(pageQuery, req.query, 'query');
    const now = clock.now();
    if (!retainedId('delivery', id)) throw new NotFoundError(`delivery ${id} not found`);
    const beforeId = query.cursor ? decodeCursor(query.cursor, 'attempt', now, deps.retentionMonths) : undefined;
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const page = await store.deliveries.attempts(auth.tenant, id as never, { beforeId: beforeId as never, limit: limit + 1 });
    if (!page || outOfScope(auth, page.consumerId)) throw new NotFoundError(`delivery ${id} not found`);
    const attempts = cursorPage(page.attempts, limit, (a) => a.id, now);
    res.json({ items: attempts.items.map(attemptJson), next_cursor: attempts.nextCursor });
  });

  router.post('/deliveries/:id/retry', requireScope('messages:retry'), async (req, res) => {
    const id = pathId(req);
    if (!retainedId('delivery', id)) throw new NotFoundError(`delivery ${id} not found`);
    const auth = authOf(res);
    if (auth.consumerId !== null) {
      // A portal link re-sends only its consumer's deliveries.
      const view = await store.deliveries.show(auth.tenant, id as never);
      if (!view || outOfScope(auth, view.consumerId)) throw new NotFoundError(`delivery ${id} not found`);
    }
    const queued = await intake.retryDelivery(auth.tenant, id as never);
    // Answered as GET /v1/deliveries/{id} shows it: the delivery as queued, with the
    // attempts it had (newest 20, and the cursor to older ones), not an empty list. A send the
    // dispatcher already made since is left out, so `attempts` matches `attempt_count`.
    const [view, endpoint] = await Promise.all([store.deliveries.show(auth.tenant, id as never), store.endpoints.get(auth.tenant, queued.endpointId)]);
    const since = view === null ? 0 : Math.max(0, view.delivery.attemptCount - queued.attemptCount);
    const attempts = view === null ? [] : view.attempts.slice(0, view.attempts.length - since);
    const older = { olderAttempts: view?.olderAttempts ?? false, now: clock.now() };
    res.status(202).json(deliveryJson(queued, attempts, endpoint ?? undefined, older));
  });

  return router;
}
