import { describe, expect, it } from 'vitest';
import { toTransformResult } from './transform-result.ts';
import type { TransformInput } from './transform-types.ts';

const input: TransformInput = { event_type: 'e', payload: { a: 1 }, headers: { 'x-a': '1' }, url: 'https://example.com/in' };
const answer = (fields: string) => ({ ok: true as const, output: `{"cancelKind":"undefined",${fields}}` });

describe('toTransformResult: nothing from the sandbox is trusted', () => {
  it('text that is not the prelude’s JSON is an error, not an exception', () => {
    expect(toTransformResult({ ok: true, output: 'not json' }, input)).toEqual({
      ok: false,
      error: 'transformation: the sandbox answered in an unexpected shape',
    });
    expect(toTransformResult({ ok: true, output: 'null' }, input)).toEqual({ ok: false, error: 'transformation: the sandbox answered in an unexpected shape' });
  });

  it('headers are checked again: a value that is not a string is refused', () => {
    const forged = answer('"payload":1,"payloadKind":"number","headers":{"x-b":2},"headersKind":"object","urlKind":"undefined"');
    expect(toTransformResult(forged, input)).toEqual({ ok: false, error: 'transformation: the returned header "x-b" must be a string; it is a number' });
  });

  it('a url that is not a string is refused whatever its kind says', () => {
    const forged = answer('"payload":1,"payloadKind":"number","headersKind":"undefined","url":5,"urlKind":"string"');
    expect(toTransformResult(forged, input)).toEqual({ ok: false, error: 'transformation: the returned url must be a string; it is a string' });
  });

  it("left out, headers and url are the input's (headers copied, not shared)", () => {
    const result = toTransformResult(answer('"payload":[1],"payloadKind":"array","headersKind":"undefined","urlKind":"undefined"'), input);
    expect(result).toEqual({ ok: true, cancel: false, payload: [1], headers: { 'x-a': '1' }, url: 'https://example.com/in' });
    if (result.ok && !result.cancel) expect(result.headers).not.toBe(input.headers);
  });

  it('a failed outcome passes through as it is', () => {
    expect(toTransformResult({ ok: false, error: 'transformation: ran longer than 50 ms (CPU budget)' }, input)).toEqual({
      ok: false,
      error: 'transformation: ran longer than 50 ms (CPU budget)',
    });
  });
});
