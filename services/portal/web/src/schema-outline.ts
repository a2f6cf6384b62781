// A JSON Schema (draft 2020-12) as a tree a person reads: each property with its type, whether it
// is required, its description, allowed values and limits; nested objects and arrays as children.
// Local `$ref`s (`#/$defs/Address`, `#/definitions/…`, `#`) are shown in place, named after their
// definition; one already open above (a recursive schema) is named, not opened again. A schema
// bigger than the page should draw is cut off (the JSON view shows all of it).

type Json = Record<string, unknown>;

/** A limit in words (translated by the view): `≥ 0`, `length 1–200`, `format email`, … */
export type Fact =
  | { kind: 'min' | 'max' | 'exclusiveMin' | 'exclusiveMax' | 'multipleOf'; value: number }
  | { kind: 'length' | 'items' | 'keys'; min: number | null; max: number | null }
  | { kind: 'format' | 'pattern'; value: string }
  | { kind: 'unique' };

/** Where a node sits under its parent. */
export type Role = 'root' | 'property' | 'pattern' | 'additional' | 'item' | 'tuple' | 'option';

/** Several schemas that combine: every one (`allOf`), exactly one (`oneOf`), at least one (`anyOf`). */
export type Combinator = 'allOf' | 'oneOf' | 'anyOf';

export interface OutlineNode {
  role: Role;
  /** A property's name, a patternProperties key's pattern; null otherwise. */
  name: string | null;
  /** Position among tuple items or options (from 1). */
  index: number | null;
  /** JSON Schema type names (`object`, `string`, …); empty: any value. */
  types: string[];
  required: boolean;
  title: string | null;
  description: string | null;
  deprecated: boolean;
  /** The allowed values, as JSON text. */
  enumValues: string[] | null;
  constValue: string | null;
  defaultValue: string | null;
  facts: Fact[];
  /** The definition it was given by `$ref` (`Address`), or the reference itself when it is not local. */
  ref: string | null;
  /** The definition is already open above: not opened again. */
  repeat: boolean;
  /** A `$ref` this page cannot open (another document). */
  unresolved: boolean;
  /** `false` schema: no value is allowed. */
  never: boolean;
  /** `additionalProperties: false`: no keys other than those listed (a tuple: no items beyond those listed). */
  closed: boolean;
  /** Children not shown: the tree is too deep or too big here. */
  truncated: boolean;
  combinator: Combinator | null;
  children: OutlineNode[];
}

/** How far the tree goes: deeper or larger parts are marked `truncated`. */
export const OUTLINE_LIMITS = { depth: 12, nodes: 600 } as const;

interface Walk {
  root: unknown;
  nodes: number;
}

/** The outline of `schema` (the root node; its children are the payload's fields). Never throws. */
export function outlineSchema(schema: unknown): OutlineNode {
  const walk: Walk = { root: schema, nodes: 0 };
  return outline(walk, schema, { role: 'root', name: null, index: null, required: false }, [], 0);
}

interface Place {
  role: Role;
  name: string | null;
  index: number | null;
  required: boolean;
}

function outline(walk: Walk, raw: unknown, place: Place, open: readonly string[], depth: number): OutlineNode {
  walk.nodes++;
  const node = blank(place);
  if (raw === false) return { ...node, never: true };
  if (!isObject(raw)) return node;

  let schema = raw;
  let refs = open;
  // A chain of references (a definition that is itself a $ref) is followed, each step checked for a cycle.
  for (let hops = 0; typeof schema['$ref'] === 'string' && hops < 8; hops++) {
    const ref = schema['$ref'];
    const target = resolveLocal(walk.root, ref);
    const label = refLabel(ref);
    node.ref = label;
    if (target === undefined) return { ...node, ...annotations(schema), unresolved: true };
    if (refs.includes(ref)) return { ...node, ...annotations(schema), repeat: true };
    refs = [...refs, ref];
    // Keywords beside $ref apply too; the referring schema's own description wins over the definition's.
    const { $ref: _ref, ...beside } = schema;
    schema = isObject(target) ? { ...target, ...beside } : target === false ? { not: {} } : beside;
  }

  Object.assign(node, annotations(schema));
  node.types = typesOf(schema);
  node.facts = factsOf(schema);
  node.closed = schema['additionalProperties'] === false || schema['unevaluatedProperties'] === false;
  if (isObject(schema['not']) && Object.keys(schema['not']).length === 0) node.never = true;

  const children: [unknown, Place][] = [];
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].filter((r) => typeof r === 'string') : []);
  for (const [name, sub] of entries(schema['properties'])) children.push([sub, { role: 'property', name, index: null, required: required.has(name) }]);
  for (const [name, sub] of entries(schema['patternProperties'])) children.push([sub, { role: 'pattern', name, index: null, required: false }]);
  // `false` is said as `closed`, not as a child that allows nothing.
  const additional = schema['additionalProperties'];
  if (additional !== false && isSchema(additional)) children.push([additional, at('additional')]);
  const tuple = Array.isArray(schema['prefixItems']) ? schema['prefixItems'] : [];
  tuple.forEach((sub, i) => void children.push([sub, { ...at('tuple'), index: i + 1 }]));
  // `items: false` after prefixItems closes the tuple: no item beyond those listed.
  if (schema['items'] === false && tuple.length > 0) node.closed = true;
  else if (isSchema(schema['items'])) children.push([schema['items'], at('item')]);
  const combinator = (['allOf', 'oneOf', 'anyOf'] as const).find((k) => Array.isArray(schema[k]) && (schema[k] as unknown[]).length > 0) ?? null;
  if (combinator) {
    node.combinator = combinator;
    (schema[combinator] as unknown[]).forEach((sub, i) => void children.push([sub, { ...at('option'), index: i + 1 }]));
  }

  if (children.length === 0) return node;
  if (depth >= OUTLINE_LIMITS.depth) return { ...node, truncated: true };
  for (const [sub, childPlace] of children) {
    if (walk.nodes >= OUTLINE_LIMITS.nodes) {
      node.truncated = true;
      break;
    }
    node.children.push(outline(walk, sub, childPlace, refs, depth + 1));
  }
  return node;
}

function blank(place: Place): OutlineNode {
  return {
    ...place,
    types: [],
    title: null,
    description: null,
    deprecated: false,
    enumValues: null,
    constValue: null,
    defaultValue: null,
    facts: [],
    ref: null,
    repeat: false,
    unresolved: false,
    never: false,
    closed: false,
    truncated: false,
    combinator: null,
    children: [],
  };
}

const at = (role: Role): Place => ({ role, name: null, index: null, required: false });

/** What describes a schema without shaping it: title, description, deprecated, enum, const, default. */
function annotations(s: Json): Pick<OutlineNode, 'title' | 'description' | 'deprecated' | 'enumValues' | 'constValue' | 'defaultValue'> {
  return {
    title: typeof s['title'] === 'string' ? s['title'] : null,
    description: typeof s['description'] === 'string' ? s['description'] : null,
    deprecated: s['deprecated'] === true,
    enumValues: Array.isArray(s['enum']) ? s['enum'].map(jsonText) : null,
    constValue: 'const' in s ? jsonText(s['const']) : null,
    defaultValue: 'default' in s ? jsonText(s['default']) : null,
  };
}

/** Its `type` (one or several), else what its keywords imply (properties: object, items: array, enum values' types). */
function typesOf(s: Json): string[] {
  const declared = s['type'];
  if (typeof declared === 'string') return [declared];
  if (Array.isArray(declared)) return declared.filter((x): x is string => typeof x === 'string');
  if (isObject(s['properties']) || isObject(s['patternProperties']) || isObject(s['additionalProperties'])) return ['object'];
  if ('items' in s || 'prefixItems' in s) return ['array'];
  const values = Array.isArray(s['enum']) ? s['enum'] : 'const' in s ? [s['const']] : [];
  return [...new Set(values.map(jsonType))];
}

function factsOf(s: Json): Fact[] {
  const facts: Fact[] = [];
  const num = (k: string) => (typeof s[k] === 'number' ? (s[k] as number) : null);
  const range = (kind: 'length' | 'items' | 'keys', min: string, max: string) => {
    if (num(min) !== null || num(max) !== null) facts.push({ kind, min: num(min), max: num(max) });
  };
  for (const [key, kind] of [
    ['minimum', 'min'],
    ['exclusiveMinimum', 'exclusiveMin'],
    ['maximum', 'max'],
    ['exclusiveMaximum', 'exclusiveMax'],
    ['multipleOf', 'multipleOf'],
  ] as const) {
    const value = num(key);
    if (value !== null) facts.push({ kind, value });
  }
  range('length', 'minLength', 'maxLength');
  range('items', 'minItems', 'maxItems');
  range('keys', 'minProperties', 'maxProperties');
  if (s['uniqueItems'] === true) facts.push({ kind: 'unique' });
  if (typeof s['format'] === 'string') facts.push({ kind: 'format', value: s['format'] });
  if (typeof s['pattern'] === 'string') facts.push({ kind: 'pattern', value: s['pattern'] });
  return facts;
}

/** The target of a reference within the same document (`#`, `#/$defs/Name`, any JSON Pointer); undefined otherwise. */
function resolveLocal(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodePointer(raw);
    if (key === null || !isObject(at) || !Object.hasOwn(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

function decodePointer(segment: string): string | null {
  try {
    return decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
  } catch {
    return null;
  }
}

/** A reference's name to show: the definition's (`Address`), else the reference as written. */
function refLabel(ref: string): string {
  const local = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref);
  return local ? (decodePointer(local[1]!) ?? ref) : ref;
}

function entries(value: unknown): [string, unknown][] {
  return isObject(value) ? Object.entries(value) : [];
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A subschema that says something: an object schema or `false` (`true` and `{}` allow anything and add nothing to show). */
function isSchema(value: unknown): boolean {
  return value === false || (isObject(value) && Object.keys(value).length > 0);
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function jsonText(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}
