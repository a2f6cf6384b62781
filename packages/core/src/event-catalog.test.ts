import { describe, expect, it, vi } from 'vitest';
import { checkCatalogEntry, compileSchema, regexKeywordIn, SchemaValidators } from './event-catalog.ts';

/**
 * A definition of `props` string properties referred to `refs` times, and `pad` numbers in
 * `examples` to make the count exact: 7 + 2·props + 5·refs + 2·props·refs + 1 + pad values
 * with each $ref expanded (the tester's 100 × 200 freezing every tenant was 41,207 + 1).
 */
function referredSchema(props: number, refs: number, pad = 0) {
  const leaf = { type: 'object', properties: Object.fromEntries(Array.from({ length: props }, (_, i) => [`p${i}`, { type: 'string' }])) };
  const properties = Object.fromEntries(Array.from({ length: refs }, (_, i) => [`a${i}`, { $ref: '#/$defs/leaf' }]));
  return { $defs: { leaf }, type: 'object', properties, examples: Array.from({ length: pad }, (_, i) => i) };
}

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
  it('refuses a regular expression anywhere a $ref could reach it (each of these took seconds on one payload)', () => {
    for (const [schema, named] of [
      [{ type: 'string', pattern: '^(a|a)*$' }, 'pattern "^(a|a)*$"'],
      [{ properties: { name: { type: 'string', pattern: '^a*a*a*a*b$' } } }, 'pattern "^a*a*a*a*b$"'],
      [{ dependencies: { x: { properties: { y: { pattern: '^(a+)+$' } } } } }, 'pattern "^(a+)+$"'],
      [{ default: { pattern: '^(a+)+$' }, properties: { y: { $ref: '#/default' } } }, 'pattern "^(a+)+$"'],
      [{ $defs: { x: { patternProperties: { '^a': { type: 'string' } } } } }, 'patternProperties'],
    ] as const) {
      expect(() => checkCatalogEntry(schema, []), named).toThrow(`schema: ${named} is not supported`);
    }
  });

  it('takes a property named pattern (a name, not a keyword), and schemas without expressions', () => {
    expect(regexKeywordIn({ properties: { pattern: { type: 'string' }, patternProperties: { type: 'object' } } })).toBeNull();
    expect(() => checkCatalogEntry({ type: 'object', properties: { pattern: { type: 'string', maxLength: 40 } } }, [{ pattern: 'x' }])).not.toThrow();
  });
});

describe('references', () => {
  it('takes the schema that froze every tenant when its references were copied (100 properties referred to 200 times, 8.6 KB)', () => {
    expect(() => checkCatalogEntry(referredSchema(100, 200), [{ a0: { p0: 'x' } }])).not.toThrow();
  });

  it('takes 60 definitions each referring twice to the one before (2^60 values, were references copied): each is compiled once', () => {
    const defs: Record<string, object> = { d0: { type: 'string' } };
    for (let i = 1; i <= 60; i++) defs[`d${i}`] = { type: 'object', properties: { x: { $ref: `#/$defs/d${i - 1}` }, y: { $ref: `#/$defs/d${i - 1}` } } };
    const validate = compileSchema({ $defs: defs, $ref: '#/$defs/d60' });
    expect(validate.toString().length).toBeLessThan(100_000);
    // d60's x is d59, an object all the way down to d0, a string.
    expect(validate({ x: { y: {} } })).toBe(true);
    expect(validate({ x: 'not an object' })).toBe(false);
  });

  it('compiles a $ref as a call, not a copy: 116 references to 40 properties make a validator of under 100,000 characters (copied: 1.7 MB)', () => {
    expect(compileSchema(referredSchema(40, 116)).toString().length).toBeLessThan(100_000);
  });
});

describe('compiling', () => {
  const flat = (props: number) => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: props }, (_, i) => [`p${i}`, { type: 'string' }])) });

  it('leaves the generated code as generated (Ajv’s optimizing pass took 1.2–2.8 s on 2,000 properties of one object)', () => {
    // The pass removes these empty checks; without it they stay.
    expect(compileSchema(flat(1)).toString()).toContain('if(errors === _errs1){}');
  });

  it('prints nothing when a schema fails to compile (Ajv printed all its generated code), and says why in the 422', () => {
    // 2,500 properties of one object overflowed the stack turning the code into a function (and
    // printed ≈ 800 KB), but how deep a stack goes varies: the failure is made here instead.
    const printed: unknown[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...args) => void printed.push(args));
    const making = vi.spyOn(globalThis, 'Function').mockImplementation(function made() {
      throw new RangeError('Maximum call stack size exceeded');
    });
    try {
      expect(() => compileSchema(flat(3))).toThrow('schema: not a JSON Schema Wirehook can use (Maximum call stack size exceeded)');
    } finally {
      making.mockRestore();
      spy.mockRestore();
    }
    expect(printed).toEqual([]);
  });
});
