// jsonValue: JSON data as JSON.parse gives it, nested at most MAX_JSON_DEPTH deep, checked
// without the call stack and passed on as given (not rebuilt).
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { jsonProblem, jsonValue, MAX_JSON_DEPTH } from './json-value.ts';

const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown;

describe('jsonValue', () => {
  it(`takes values nested ${MAX_JSON_DEPTH} deep, the value itself the first level; refuses ${MAX_JSON_DEPTH + 1}`, () => {
    expect(MAX_JSON_DEPTH).toBe(128);
    expect(jsonProblem(nested(128))).toBeUndefined();
    expect(jsonProblem(nested(129))).toBe('must be JSON nested at most 128 levels deep');
    expect(jsonProblem({ a: nested(127) })).toBeUndefined();
    expect(jsonProblem({ a: nested(128) })).toBe('must be JSON nested at most 128 levels deep');
  });

  it('a million levels deep is refused without exhausting the stack', () => {
    expect(jsonProblem(nested(1_000_000))).toBe('must be JSON nested at most 128 levels deep');
  });

  it('scalars, arrays and plain objects are JSON; undefined, functions, dates and infinities are not', () => {
    for (const ok of [null, 0, -1.5, '', 'x', true, [], {}, Object.create(null), { a: [1, { b: null }] }]) expect(jsonProblem(ok)).toBeUndefined();
    for (const bad of [undefined, () => 1, new Date(0), Number.NaN, Number.POSITIVE_INFINITY, { a: undefined }, [1n]]) expect(jsonProblem(bad)).toBeDefined();
  });

  it('passes the value on as given: the same object, a "__proto__" key kept', () => {
    const value = JSON.parse('{"__proto__":{"admin":true},"a":{"__proto__":1}}') as unknown;
    const parsed = jsonValue.parse(value);
    expect(parsed).toBe(value);
    expect(JSON.stringify(parsed)).toBe('{"__proto__":{"admin":true},"a":{"__proto__":1}}');
  });

  it('is JSON Schema’s any value (the MCP tool list and the OpenAPI document are made from it), and required in an object', () => {
    expect(z.toJSONSchema(jsonValue)).toEqual({ $schema: 'https://json-schema.org/draft/2020-12/schema' });
    const body = z.strictObject({ payload: jsonValue });
    expect(z.toJSONSchema(body)).toMatchObject({ required: ['payload'] });
    expect(body.safeParse({}).error?.issues.map((i) => i.message)).toEqual(['is required and must be JSON']);
  });
});
