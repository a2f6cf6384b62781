import { ALERT_OPERATIONS } from './alert-operations.ts';
import { CONSUMER_OPERATIONS } from './consumer-operations.ts';
import { ENDPOINT_OPERATIONS } from './endpoint-operations.ts';
import { EVENT_TYPE_OPERATIONS } from './event-type-operations.ts';
import { MESSAGE_OPERATIONS } from './message-operations.ts';
import type { Operation } from './operation.ts';

export type { Operation, PathParam, SuccessResponse } from './operation.ts';

/** Every operation of the public API, by tag in the reference's order: the table the OpenAPI document is generated from. */
export const OPERATIONS: readonly Operation[] = [
  ...MESSAGE_OPERATIONS,
  ...CONSUMER_OPERATIONS,
  ...ENDPOINT_OPERATIONS,
  ...EVENT_TYPE_OPERATIONS,
  ...ALERT_OPERATIONS,
];
