import type { z } from 'zod';
import { type ErrorCode, listOf, pageOf, type Scope } from '@wirehook/core';

/** A path parameter: its name and what it holds. */
export interface PathParam {
  name: string;
  description: string;
}

/** A success response: its status, what it holds and its schema's component name (none for 204). */
export interface SuccessResponse {
  status: 200 | 201 | 202 | 204;
  description: string;
  schema?: { name: string; schema: z.ZodType };
  /** A sample body, shown in the reference. */
  example?: unknown;
  /** Response headers beyond the rate-limit ones every authenticated response has. */
  headers?: readonly 'x-usage-month'[];
}

/**
 * One operation of the public API, as data: what the OpenAPI document is generated from.
 * The request schemas are the very ones the routes parse with; the response schemas type the
 * presenters; `test/e2e` validates every response the suites receive against the document.
 */
export interface Operation {
  id: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI form: `/v1/endpoints/{id}`. */
  path: string;
  tag: 'Messages' | 'Consumers' | 'Endpoints' | 'Event types' | 'Alerts';
  summary: string;
  description?: string;
  /** null: any key of the environment. */
  scope: Scope | null;
  params?: readonly PathParam[];
  query?: z.ZodObject;
  body?: { name: string; schema: z.ZodType; required: boolean; example?: unknown };
  idempotencyKey?: boolean;
  success: SuccessResponse;
  /** Errors this operation answers beyond 401, 429 (every one) and 403, 413, 422 (every scoped one). */
  errors: readonly ErrorCode[];
}

/** The `id` path parameter, holding `what`. */
export const idParam = (what: string): PathParam => ({ name: 'id', description: what });

/** A response schema for a page of `item`, under the component name `name`. */
export const pageSchema = (name: string, item: z.ZodType) => ({ name, schema: pageOf(item) });

/** A response schema for an unpaged list of `item`, under the component name `name`. */
export const listSchema = (name: string, item: z.ZodType) => ({ name, schema: listOf(item) });
