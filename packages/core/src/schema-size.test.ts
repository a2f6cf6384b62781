import { describe, expect, it } from 'vitest';
import { expandedSchemaSize } from './schema-size.ts';

describe('expandedSchemaSize', () => {
  it('counts every JSON value, and a $ref once more for each value of what it refers to', () => {
    // 1 object, 1 string: 2 values.
    expect(expandedSchemaSize({ type: 'string' }, 100)).toBe(2);
    // root, $defs, d, "string", properties, a, "#/$defs/d", b, "#/$defs/d": 9, and d copied at a and at b (2 each): 13.
    const twice = { $defs: { d: { type: 'string' } }, properties: { a: { $ref: '#/$defs/d' }, b: { $ref: '#/$defs/d' } } };
    expect(expandedSchemaSize(twice, 100)).toBe(13);
  });

  it('resolves #, JSON pointers (escaped), anchors and an $id as written', () => {
    // 5 values; beside it the root, $defs and the $ref's string make 8 as written.
    const leaf = { type: 'object', properties: { x: { type: 'string' } } };
    expect(expandedSchemaSize({ $defs: { 'a/b~': leaf }, $ref: '#/$defs/a~1b~0' }, 100)).toBe(8 + 5);
    // The anchor's string makes the definition 6.
    expect(expandedSchemaSize({ $defs: { d: { $anchor: 'leaf', ...leaf } }, $ref: '#leaf' }, 100)).toBe(9 + 6);
    // The $id's likewise; the reference is to x (2 values) within it.
    const byId = { $defs: { d: { $id: 'https://example.com/leaf', ...leaf } }, $ref: 'https://example.com/leaf#/properties/x' };
    expect(expandedSchemaSize(byId, 100)).toBe(9 + 2);
    // Unresolvable (Ajv refuses it when compiling): counted as written.
    expect(expandedSchemaSize({ $ref: 'https://elsewhere.example/x' }, 100)).toBe(2);
  });

  it('expands a reference back into what it is expanding once, not forever (a tree)', () => {
    const tree = { $defs: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } } } }, $ref: '#/$defs/node' };
    // 10 as written; node (7 values) copied at the root's $ref and at its own $ref under $defs, but
    // not again at the $ref within either copy (it refers to the node being copied).
    expect(expandedSchemaSize(tree, 1_000)).toBe(10 + 7 + 7);
    // 4 as written, and the whole schema once more at its $ref.
    expect(expandedSchemaSize({ properties: { self: { $ref: '#' } } }, 1_000)).toBe(4 + 4);
  });

  it('stops past the cap: 60 definitions each referring twice to the one before (2^60 copies) count to cap + 1', () => {
    const defs: Record<string, unknown> = { d0: { type: 'string' } };
    for (let i = 1; i <= 60; i++) defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] };
    expect(expandedSchemaSize({ $defs: defs, $ref: '#/$defs/d60' }, 10_000)).toBe(10_001);
  });
});
