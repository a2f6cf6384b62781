import { Router } from 'express';
import {
  checkCatalogEntry,
  createEventTypeBody,
  eventTypeName,
  ForbiddenError,
  InvalidError,
  MAX_EVENT_TYPES,
  newEventType,
  noQuery,
  NotFoundError,
  parseInput,
  patchEventTypeBody,
  type Tenant,
} from '@wirehook/core';
import type { ApiDeps } from '../deps.ts';
import { authOf, requireScope } from '../http/auth.ts';
import { catalogRulesOf } from './catalog-rules.ts';
import { catalogOpenApi } from './catalog-openapi.ts';
import { eventTypeJson, eventTypeSummaryJson } from './presenters.ts';

/** /v1/event-types and the event catalog; the portal serves the reads too, under its link's token (services/portal). */
export function eventTypesRouter(deps: Pick<ApiDeps, 'store' | 'clock'>): Router {
  const { store, clock } = deps;
  const router = Router();
  const rules = catalogRulesOf(store, clock);

  /** The registry is the sender's: a portal link (one consumer) reads it, never writes it. */
  const senderOnly = (res: Parameters<typeof authOf>[0]) => {
    if (authOf(res).consumerId !== null) throw new ForbiddenError('a portal link cannot do this');
  };
  const load = async (t: Tenant, raw: unknown) => {
    const name = String(raw);
    const found = eventTypeName.safeParse(name).success ? await store.eventTypes.get(t, name) : null;
    if (found === null) throw new NotFoundError(`event type ${JSON.stringify(name)} not found`);
    return found;
  };

  // Any key of the environment may list event types: no scope.
  router.get('/', async (req, res) => {
    parseInput(noQuery, req.query, 'query');
    const items = await store.eventTypes.list(authOf(res).tenant);
    res.json({ items: items.map(eventTypeSummaryJson) });
  });

  router.post('/', requireScope('endpoints:write'), async (req, res) => {
    senderOnly(res);
    const body = parseInput(createEventTypeBody, req.body, 'request body');
    const schema = body.schema ?? null;
    const examples = body.examples ?? [];
    checkRules(schema, examples, body.validation ?? 'none');
    const now = clock.now();
    const created = await store.eventTypes.create(
      authOf(res).tenant,
      newEventType({
        name: body.name,
        description: body.description ?? null,
        createdAt: now,
        schema,
        examples,
        validation: body.validation ?? 'none',
        deprecated: body.deprecated ?? false,
      }),
      MAX_EVENT_TYPES,
    );
    rules.forget(authOf(res).tenant);
    res.status(201).json(eventTypeJson(created));
  });

  // Before /:name: the catalog as an OpenAPI 3.1 document, one `webhooks` entry per event type.
  router.get('/openapi.json', async (_req, res) => {
    res.json(await catalogOpenApi(store, authOf(res).tenant));
  });

  router.get('/:name', async (req, res) => {
    res.json(eventTypeJson(await load(authOf(res).tenant, req.params['name'])));
  });

  router.get('/:name/versions', async (req, res) => {
    parseInput(noQuery, req.query, 'query');
    const { tenant } = authOf(res);
    const current = await load(tenant, req.params['name']);
    const items = await store.eventTypes.versions(tenant, current.name);
    res.json({
      items: items.map((v) => ({ version: v.version, schema: v.schema, created_at: v.createdAt, retired_at: v.retiredAt })),
    });
  });

  router.patch('/:name', requireScope('endpoints:write'), async (req, res) => {
    senderOnly(res);
    const { tenant } = authOf(res);
    const current = await load(tenant, req.params['name']);
    const body = parseInput(patchEventTypeBody, req.body, 'request body');
    // What it will be: the examples must match the schema it will have, and enforce needs one.
    const schema = body.schema === undefined ? current.schema : body.schema;
    checkRules(schema, body.examples ?? current.examples, body.validation ?? current.validation);
    const updated = await store.eventTypes.update(tenant, current.name, body, clock.now(), current.rev);
    if (updated === null) throw new NotFoundError(`event type ${JSON.stringify(current.name)} not found`);
    rules.forget(tenant);
    res.json(eventTypeJson(updated));
  });

  return router;
}

/** A schema that compiles (in time), examples that match it, and `enforce` only with a schema. @throws InvalidError */
function checkRules(schema: Record<string, unknown> | null, examples: readonly unknown[], validation: 'none' | 'enforce'): void {
  if (schema === null && validation === 'enforce') throw new InvalidError('validation: enforce needs a schema to enforce; set schema too');
  checkCatalogEntry(schema, examples);
}
