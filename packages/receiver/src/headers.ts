/** A Web `Headers` object, or anything with a `get(name)` of the same meaning. */
export interface HeaderGetter {
  get(name: string): string | null;
}

/**
 * Request headers in any common shape: a Web `Headers`, Node's `req.headers`, or a plain
 * object whose names may be in any case.
 */
export type HeadersLike = HeaderGetter | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * The value of header `name` (lowercase), or undefined when absent. A header repeated as
 * an array is joined with spaces, the separator of signature lists.
 */
export function headerValue(headers: HeadersLike, name: string): string | undefined {
  if (isGetter(headers)) return headers.get(name) ?? undefined;
  const key = Object.hasOwn(headers, name) ? name : Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return typeof value === 'string' || value === undefined ? value : value.join(' ');
}

function isGetter(headers: HeadersLike): headers is HeaderGetter {
  return typeof headers.get === 'function';
}
