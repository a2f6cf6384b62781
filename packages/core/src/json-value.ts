import { z } from 'zod';

/** A JSON value, as JSON.parse gives one. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * How deep a JSON value may nest (arrays and objects within each other). Deeper values are
 * refused with 422: many receivers' parsers stop there (serde_json's default limit is 128), and
 * a value thousands deep exhausted the stack of the code that read it (a 6 KB body answered 500).
 */
export const MAX_JSON_DEPTH = 128;

/**
 * What is wrong with `value` as JSON data (undefined: nothing) — a walk of its own stack, never
 * the call stack's, however deep the value is.
 */
export function jsonProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined {
  const stack: [unknown, number][] = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [at, depth] = next;
    if (at === null || typeof at === 'string' || typeof at === 'boolean') continue;
    if (typeof at === 'number') {
      if (!Number.isFinite(at)) return 'must be JSON (a number is finite)';
      continue;
    }
    if (typeof at !== 'object') return 'is required and must be JSON';
    if (depth > maxDepth) return `must be JSON nested at most ${maxDepth} levels deep`;
    const proto = Object.getPrototypeOf(at);
    if (Array.isArray(at)) for (const item of at) stack.push([item, depth + 1]);
    else if (proto === Object.prototype || proto === null) for (const key of Object.keys(at)) stack.push([(at as Record<string, unknown>)[key], depth + 1]);
    else return 'is required and must be JSON';
  }
  return undefined;
}

/**
 * Any JSON value: a message's payload, an event type's schema and examples. One instance: the
 * OpenAPI document refers to it as JsonValue. Checked by `jsonProblem`, and passed on as given —
 * not rebuilt as zod's `z.json()` did, which dropped a `"__proto__"` key (an assignment sets the
 * prototype), recursed once a level, and cost the create path a union tried at every node. An
 * `unknown` refined, not a `custom`: JSON Schema reads it as `{}` (any value), where a custom
 * type cannot be represented at all (the MCP server's tool list, made from these schemas, failed).
 */
export const jsonValue: z.ZodType<JsonValue> = z.unknown().superRefine((value, ctx) => {
  const problem = jsonProblem(value);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
}) as z.ZodType<unknown> as z.ZodType<JsonValue>;
