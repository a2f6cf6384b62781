import { describe, expect, it } from 'vitest';
import { checkCatalogEntry, patternsOf, SchemaValidators } from './event-catalog.ts';

describe('SchemaValidators', () => {
  it('keeps schemas apart: two tenants’ schemas of one $id each check their own rules', () => {
    const validators = new SchemaValidators();
    const a = { $id: 'https://example.com/order', type: 'object', required: ['a'] };
    const b = { $id: 'https://example.com/order', type: 'object', required: ['b'] };
    expect(validators.check(a, { a: 1 })).toBeNull();
    expect(validators.check(b, { b: 1 })).toBeNull();
    expect(validators.check(b, { a: 1 })).toBe("payload: must have required property 'b' (required)");
    expect(validators.check(a, { b: 1 })).toBe("payload: must have required property 'a' (required)");
  });
});

describe('checkCatalogEntry', () => {
  it('refuses a pattern that backtracks exponentially, anywhere in the schema; takes a linear one', () => {
    const nested = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } };
    expect(() => checkCatalogEntry(nested, [])).toThrow('schema: pattern "^(a+)+$" can take exponential time on some text (nested repetition); simplify it');
    const deep = { $defs: { x: { patternProperties: { '^(ab*)*c$': { type: 'string' } } } } };
    expect(() => checkCatalogEntry(deep, [])).toThrow(/can take exponential time/);
    expect(() => checkCatalogEntry({ type: 'string', pattern: '^[a-z]+-[0-9]{1,6}$' }, ['ab-12'])).not.toThrow();
  });

  it('finds patterns by keyword only: a property named pattern is no pattern', () => {
    expect(patternsOf({ properties: { pattern: { type: 'string' } }, items: { pattern: 'a*' }, anyOf: [{ pattern: 'b' }] })).toEqual(['a*', 'b']);
  });
});
