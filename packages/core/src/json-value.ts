import { z } from 'zod';

/** Any JSON value: a message's payload, an event type's schema and examples. One instance: the OpenAPI document refers to it as JsonValue. */
export const jsonValue = z.json({ error: 'is required and must be JSON' });
