import { z } from 'zod';
import { createEventTypeBody, eventTypeResponse, eventTypeSummaryResponse, eventTypeVersionResponse, noQuery, patchEventTypeBody } from '@wirehook/core';
import { listSchema, type Operation } from './operation.ts';

const nameParam = { name: 'name', description: 'the event type’s name (invoice.paid)' };
const SCHEMA_EXAMPLE = {
  type: 'object',
  properties: { invoice: { type: 'integer' }, amount: { type: 'integer', minimum: 0 } },
  required: ['invoice', 'amount'],
};

/** The operations under the 'Event types' tag, in the order the reference shows them. */
export const EVENT_TYPE_OPERATIONS: readonly Operation[] = [
  {
    id: 'listEventTypes',
    method: 'get',
    path: '/v1/event-types',
    tag: 'Event types',
    summary: 'List event types',
    description:
      'Ordered by name, without paging; each without its schema and examples (get one for them). Any key of the environment may list them. ' +
      'It takes no query fields: one given is 422, as in every list.',
    scope: null,
    query: noQuery,
    success: { status: 200, description: 'The event types', schema: listSchema('EventTypeList', eventTypeSummaryResponse) },
    errors: ['invalid'],
  },
  {
    id: 'createEventType',
    method: 'post',
    path: '/v1/event-types',
    tag: 'Event types',
    summary: 'Register an event type',
    description:
      'With an optional catalog entry: a JSON Schema (draft 2020-12, at most 64 KB) of the payload, up to 5 examples valid against it, ' +
      '`validation: enforce` to refuse messages whose payload does not match, and `deprecated`.',
    scope: 'endpoints:write',
    body: {
      name: 'CreateEventTypeRequest',
      schema: createEventTypeBody,
      required: true,
      example: { name: 'invoice.paid', description: 'An invoice was paid', schema: SCHEMA_EXAMPLE, examples: [{ invoice: 1001, amount: 4200 }] },
    },
    success: { status: 201, description: 'Registered', schema: { name: 'EventType', schema: eventTypeResponse } },
    errors: ['conflict'],
  },
  {
    id: 'exportEventCatalog',
    method: 'get',
    path: '/v1/event-types/openapi.json',
    tag: 'Event types',
    summary: 'Export the event catalog as OpenAPI',
    description:
      'An OpenAPI 3.1 document with one `webhooks` entry per event type: the webhook envelope with the event type’s schema as `data`, ' +
      'its examples and the signature headers — for generating a receiver’s types. Any key of the environment may read it.',
    scope: null,
    success: { status: 200, description: 'The OpenAPI document', schema: { name: 'EventCatalogDocument', schema: z.record(z.string(), z.unknown()) } },
    errors: [],
  },
  {
    id: 'getEventType',
    method: 'get',
    path: '/v1/event-types/{name}',
    tag: 'Event types',
    summary: 'Get an event type',
    description: 'With its schema and examples.',
    scope: null,
    params: [nameParam],
    success: { status: 200, description: 'The event type', schema: { name: 'EventType', schema: eventTypeResponse } },
    errors: ['not_found'],
  },
  {
    id: 'updateEventType',
    method: 'patch',
    path: '/v1/event-types/{name}',
    tag: 'Event types',
    summary: 'Update an event type’s catalog entry',
    description:
      'Description, schema, examples, validation and deprecated; absent fields stay. A changed schema makes a new version (the earlier one is kept: ' +
      'list them with the versions route). Examples must match the schema the event type will have; `enforce` needs a schema. ' +
      'Enforcement follows within 5 seconds on every gateway.',
    scope: 'endpoints:write',
    params: [nameParam],
    body: { name: 'UpdateEventTypeRequest', schema: patchEventTypeBody, required: true, example: { validation: 'enforce', deprecated: false } },
    success: { status: 200, description: 'The event type as updated', schema: { name: 'EventType', schema: eventTypeResponse } },
    errors: ['not_found', 'conflict'],
  },
  {
    id: 'listEventTypeVersions',
    method: 'get',
    path: '/v1/event-types/{name}/versions',
    tag: 'Event types',
    summary: 'List an event type’s earlier schemas',
    description: 'Newest first, the 100 most recent; the current schema is the event type’s own.',
    scope: null,
    params: [nameParam],
    query: noQuery,
    success: { status: 200, description: 'The earlier versions', schema: listSchema('EventTypeVersionList', eventTypeVersionResponse) },
    errors: ['invalid', 'not_found'],
  },
];
