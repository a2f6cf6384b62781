// How large a JSON Schema is once its `$ref`s are expanded: what compiling it would cost if every
// reference were copied in (Ajv's default inlines a referenced schema at each `$ref`: a 10 KB
// schema of 200 references to a definition of 100 properties compiled for 5 s and more).

/** Targets being expanded on the way to a value: a `$ref` to one of them is a cycle, counted once. */
interface Chain {
  readonly target: object;
  readonly next: Chain | null;
}

/**
 * The number of JSON values (objects, arrays, strings, numbers, booleans, nulls) in `schema`,
 * counting each `$ref` or `$dynamicRef` it can resolve as a copy of what it refers to (a reference
 * back into a schema it is already expanding is not expanded again). Stops once past `cap`, so its
 * own cost is bounded: the result is at most `cap + 1`. Resolves `#`, `#/json/pointer`, `#anchor`,
 * and an `$id` written exactly as in the schema (with a fragment after it); any other reference
 * counts as itself.
 */
export function expandedSchemaSize(schema: unknown, cap: number): number {
  const named = namedSchemas(schema);
  let count = 1;
  const stack: { value: unknown; chain: Chain | null }[] = [{ value: schema, chain: null }];
  while (stack.length > 0) {
    const { value, chain } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    // Counted as they are found, not as they are taken: a wide object referred to many times
    // stops the walk at the cap rather than piling its entries up first.
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (++count > cap) return count;
      stack.push({ value: child, chain });
    }
    if (Array.isArray(value)) continue;
    for (const key of ['$ref', '$dynamicRef'] as const) {
      const ref = (value as Record<string, unknown>)[key];
      const target = typeof ref === 'string' ? resolve(schema, named, ref) : undefined;
      if (target === undefined || target === null || typeof target !== 'object' || onChain(chain, target)) continue;
      if (++count > cap) return count;
      stack.push({ value: target, chain: { target, next: chain } });
    }
  }
  return count;
}

function onChain(chain: Chain | null, target: object): boolean {
  for (let link = chain; link !== null; link = link.next) if (link.target === target) return true;
  return false;
}

/** Every object with an `$id`, `$anchor` or `$dynamicAnchor`, by that string (anchors as `#name`). */
function namedSchemas(schema: unknown): Map<string, object> {
  const named = new Map<string, object>();
  const stack = [schema];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    if (!Array.isArray(value)) {
      const { $id, $anchor, $dynamicAnchor } = value as Record<string, unknown>;
      if (typeof $id === 'string') named.set($id.replace(/#$/, ''), value);
      if (typeof $anchor === 'string') named.set(`#${$anchor}`, value);
      if (typeof $dynamicAnchor === 'string') named.set(`#${$dynamicAnchor}`, value);
    }
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push(child);
  }
  return named;
}

function resolve(root: unknown, named: Map<string, object>, ref: string): unknown {
  const hash = ref.indexOf('#');
  const base = hash === -1 ? ref : ref.slice(0, hash);
  const fragment = hash === -1 ? '' : ref.slice(hash + 1);
  const document = base === '' ? root : named.get(base);
  if (document === undefined) return undefined;
  if (fragment === '') return document;
  if (!fragment.startsWith('/')) return named.get(`#${fragment}`);
  let at: unknown = document;
  for (const raw of fragment.slice(1).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, token)) return undefined;
    at = (at as Record<string, unknown>)[token];
  }
  return at;
}
