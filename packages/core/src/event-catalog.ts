// The event catalog: an event type's JSON Schema (draft 2020-12), its examples, whether the
// API enforces it, and the validators the intake runs. One module, so the API's checks at
// create/PATCH and the intake's at POST /v1/messages compile a schema the same way, once.
import { createHash } from 'node:crypto';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { InvalidError } from './errors.ts';
import { jsonValue } from './json-value.ts';
import { requiredOnFirstUse } from './required-on-first-use.ts';
import { forgetNumbering, useLinearUniqueItems } from './unique-items.ts';
import type { EventType } from './model.ts';

/** Most bytes of an event type's schema, as JSON (UTF-8). */
export const MAX_SCHEMA_BYTES = 65_536;
/** Most examples an event type has. */
export const MAX_EXAMPLES = 5;
/** Most bytes of one example, as JSON: a message's payload is at most 256 KB, an example far less. */
export const MAX_EXAMPLE_BYTES = 16_384;
/**
 * A schema whose compilation takes longer than this is refused: every intake that enforces it
 * compiles it once, on the request's thread. Wall time, so it catches the pathological (thousands
 * of nested subschemas), not an ordinary schema on a busy machine.
 */
export const MAX_COMPILE_MS = 5_000;

export const EVENT_TYPE_VALIDATIONS = ['none', 'enforce'] as const;
export type EventTypeValidation = (typeof EVENT_TYPE_VALIDATIONS)[number];

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

/** `schema` on create and PATCH: a JSON object (a JSON Schema), at most MAX_SCHEMA_BYTES; compiled by checkedSchema. */
export const eventTypeSchemaInput = z
  .record(z.string(), jsonValue, { error: 'must be a JSON Schema (an object), or null' })
  .refine((schema) => bytes(schema) <= MAX_SCHEMA_BYTES, { error: `must be at most ${MAX_SCHEMA_BYTES} bytes as JSON` })
  .describe(`a JSON Schema (draft 2020-12) of the payload, at most ${MAX_SCHEMA_BYTES} bytes; null removes it`);

/** `examples`: up to MAX_EXAMPLES payloads, each at most MAX_EXAMPLE_BYTES; each must match the schema (checked with it). */
export const eventTypeExamplesInput = z
  .array(jsonValue, { error: 'must be an array of example payloads' })
  .max(MAX_EXAMPLES, { error: `may have at most ${MAX_EXAMPLES} examples` })
  .superRefine((examples, ctx) => {
    examples.forEach((example, i) => {
      if (bytes(example) > MAX_EXAMPLE_BYTES) ctx.addIssue({ code: 'custom', path: [i], message: `must be at most ${MAX_EXAMPLE_BYTES} bytes as JSON` });
    });
  })
  .describe(`up to ${MAX_EXAMPLES} example payloads (each at most ${MAX_EXAMPLE_BYTES} bytes), each valid against the schema`);

export const eventTypeValidationInput = z
  .enum(EVENT_TYPE_VALIDATIONS, { error: 'must be none or enforce' })
  .describe('enforce: POST /v1/messages refuses a payload that does not match the schema (422); none (the default): not checked');

/** One compiled schema: its validator and the id of the schema text it was made from. */
interface Compiled {
  validate: ValidateFunction;
}

/**
 * Compiled validators by a hash of the schema's JSON: the intake checks every message of an
 * enforcing event type, and compiling costs far more than validating. Bounded (least recently
 * used out): a schema changed by a PATCH is a new entry, the old one ages out.
 */
export class SchemaValidators {
  readonly #compiled = new Map<string, Compiled>();
  readonly #capacity: number;

  constructor(capacity = 1_000) {
    this.#capacity = capacity;
  }

  /**
   * The first way `payload` fails `schema`, as `payload<path>: <message> (<rule>)`, or null when it matches.
   * @throws InvalidError when the schema does not compile (a stored schema always did).
   */
  check(schema: object, payload: unknown): string | null {
    return this.validatorFor(schema)(payload);
  }

  /**
   * `schema` compiled, as a function of a payload: null, or the first way it fails. Keep it to
   * check many payloads: finding the compiled schema hashes its text, which costs more than a check.
   */
  validatorFor(schema: object): (payload: unknown) => string | null {
    const { validate } = this.#get(schema);
    return (payload) => {
      try {
        return validate(payload) ? null : describeError(validate.errors?.[0]);
      } finally {
        forgetNumbering(payload);
      }
    };
  }

  #get(schema: object): Compiled {
    const key = createHash('sha256').update(JSON.stringify(schema)).digest('base64url');
    let compiled = this.#compiled.get(key);
    if (compiled !== undefined) {
      this.#compiled.delete(key);
      this.#compiled.set(key, compiled);
      return compiled;
    }
    // Each schema in an Ajv of its own: schemas of different tenants may use one `$id`, and in a
    // shared instance one's would clash with, or be referred to by, another's.
    compiled = { validate: compileSchema(schema) };
    this.#compiled.set(key, compiled);
    if (this.#compiled.size > this.#capacity) this.#compiled.delete(this.#compiled.keys().next().value!);
    return compiled;
  }
}

// Ajv (≈ 60 ms of CPU to import) is required by the first schema compiled: every Wirehook process
// imports core, and most never compile one.
const ajv2020 = requiredOnFirstUse<typeof import('ajv/dist/2020.js')>(import.meta.url, 'ajv/dist/2020.js');

function newAjv(): Ajv2020 {
  // allErrors off: the first failure is all a 422 names, and stopping there bounds the work.
  // strictSchema: an unknown keyword (a typo such as `requried`) is refused at PATCH rather than
  // silently never checked; the other strict rules (types beside keywords, required properties
  // declared) would refuse ordinary schemas, so they are off.
  // inlineRefs off: a referenced schema is compiled once and called, not copied in at each `$ref`
  // (copies made compiling 200 references to one definition of 100 properties take 5 s, not 0.13 s).
  const ajv = new (ajv2020().Ajv2020)({
    allErrors: false,
    inlineRefs: false,
    strictSchema: true,
    strictNumbers: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    validateFormats: false,
    // No optimizing pass: it is superlinear in the code's nesting (2,000 properties of one object
    // compiled in 1.2–2.8 s with it, 0.15–0.3 s without), and checking took no measurable longer.
    code: { optimize: false },
    // Not console: a schema that fails to compile would print all its generated code (≈ 800 KB for
    // 2,500 properties), once per attempt; the 422 names the failure.
    logger: false,
  });
  useLinearUniqueItems(ajv);
  return ajv;
}

/**
 * `schema` compiled as the catalog compiles every schema, in an Ajv of its own.
 * @throws InvalidError `schema: not a JSON Schema Wirehook can use (…)`.
 */
export function compileSchema(schema: object): ValidateFunction {
  try {
    return newAjv().compile(structuredClone(schema));
  } catch (err) {
    throw new InvalidError(`schema: not a JSON Schema Wirehook can use (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** `payload<instancePath>: <message> (<keyword>)`: the path as JSON Pointer after `payload`. */
function describeError(error: ErrorObject | undefined): string {
  if (error === undefined) return 'payload: does not match the schema';
  const path = `payload${error.instancePath}`;
  const extra = error.keyword === 'additionalProperties' ? ` ${JSON.stringify((error.params as { additionalProperty?: string }).additionalProperty)}` : '';
  return `${path}: ${error.message ?? 'does not match'}${extra} (${error.keyword})`;
}

/**
 * Checks a schema and its examples as a create or PATCH stores them: no regular expressions, it
 * compiles within MAX_COMPILE_MS, and every example matches it.
 * @throws InvalidError naming what is wrong (`schema: …`, `examples.2: payload/price: must be number (type)`).
 */
export function checkCatalogEntry(schema: object | null, examples: readonly unknown[]): void {
  if (schema === null) return;
  // The intake runs every pattern on every payload of an enforcing type, on the API's thread, and
  // a JavaScript regular expression can take exponential time ((a|a)*$, a*a*a*b$): no heuristic
  // tells every such one apart, so patterns are refused, wherever a `$ref` could reach them.
  const pattern = regexKeywordIn(schema);
  if (pattern !== null) {
    throw new InvalidError(
      `schema: ${pattern} is not supported (a regular expression can take exponential time on some payloads, on the thread that accepts every ` +
        'message); use enum, const, format or length limits instead',
    );
  }
  // A backstop. Within the 64 KB a schema may have, with $refs compiled as calls and Ajv's
  // optimizing pass off (newAjv), the slowest measured compiles in 0.2–0.3 s (2,000 properties of
  // one object); 60 definitions each referring twice to the one before (2^60 values, were the
  // references copied) in 30 ms.
  const started = performance.now();
  const validate = compileSchema(schema);
  const took = performance.now() - started;
  if (took > MAX_COMPILE_MS) throw new InvalidError(`schema: compiling it took ${Math.round(took)} ms, more than ${MAX_COMPILE_MS} ms; simplify it`);
  for (const [i, example] of examples.entries()) {
    const valid = validate(example);
    forgetNumbering(example);
    if (!valid) throw new InvalidError(`examples.${i}: ${describeError(validate.errors?.[0])}`);
  }
}

/** A new event type with `fields` and the catalog's defaults: no schema, no examples, not enforced, version 1. */
export function newEventType(fields: Pick<EventType, 'name' | 'createdAt'> & Partial<EventType>): EventType {
  return {
    description: null,
    archivedAt: null,
    schema: null,
    examples: [],
    validation: 'none',
    deprecated: false,
    version: 1,
    updatedAt: fields.createdAt,
    versionAt: fields.createdAt,
    rev: 0,
    ...fields,
  };
}

/**
 * `pattern` or `patternProperties` anywhere in `schema` — in any object, under any key (a `$ref`
 * can reach a subschema kept under `default` or an unknown keyword), except a `properties` map's
 * own keys (a property may be named pattern). null: none.
 */
export function regexKeywordIn(schema: unknown, namesOnly = false): string | null {
  if (Array.isArray(schema)) {
    for (const item of schema) {
      const found = regexKeywordIn(item);
      if (found !== null) return found;
    }
    return null;
  }
  if (schema === null || typeof schema !== 'object') return null;
  for (const [key, value] of Object.entries(schema)) {
    if (!namesOnly && key === 'pattern' && typeof value === 'string') return `pattern ${JSON.stringify(value)}`;
    if (!namesOnly && key === 'patternProperties' && value !== null && typeof value === 'object') return 'patternProperties';
    const found = regexKeywordIn(value, !namesOnly && key === 'properties');
    if (found !== null) return found;
  }
  return null;
}
