import { createEventTypeBody, eventTypeResponse } from '@wirehook/core';
import { listSchema, type Operation } from './operation.ts';

/** The operations under the 'Event types' tag, in the order the reference shows them. */
export const EVENT_TYPE_OPERATIONS: readonly Operation[] = [
  {
    id: 'listEventTypes',
    method: 'get',
    path: '/v1/event-types',
    tag: 'Event types',
    summary: 'List event types',
    description: 'Ordered by name, without paging. Any key of the environment may list them.',
    scope: null,
    success: { status: 200, description: 'The event types', schema: listSchema('EventTypeList', eventTypeResponse) },
    errors: [],
  },
  {
    id: 'createEventType',
    method: 'post',
    path: '/v1/event-types',
    tag: 'Event types',
    summary: 'Register an event type',
    scope: 'endpoints:write',
    body: {
      name: 'CreateEventTypeRequest',
      schema: createEventTypeBody,
      required: true,
      example: { name: 'invoice.paid', description: 'An invoice was paid' },
    },
    success: { status: 201, description: 'Registered', schema: { name: 'EventType', schema: eventTypeResponse } },
    errors: ['conflict'],
  },
];
