import { describe, expect, it } from 'vitest';
import { SchemaValidators } from './event-catalog.ts';

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
