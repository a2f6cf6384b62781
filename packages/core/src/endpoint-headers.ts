// An endpoint's custom headers (`headers`): what a receiver needs besides the signature — an API
// gateway's key, a tenant id, a routing hint. The rules are checked once here, for the API and
// every other way in (the portal, MCP); the values may be credentials, so they are stored sealed
// and shown redacted (endpoints.ts seals them, presenters show `shown`).
import { z } from 'zod';
import type { EndpointHeaders } from './model.ts';
import type { SecretBox } from './secrets.ts';

/** Most custom headers an endpoint has. */
export const MAX_ENDPOINT_HEADERS = 20;
/** Most bytes of all names and values together (UTF-8). */
export const MAX_ENDPOINT_HEADER_BYTES = 4_096;

/** RFC 9110 §5.6.2 token: a header name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * A header value Wirehook sends as given: printable ASCII and tabs, no space or tab at either
 * end. RFC 9110 allows more (obs-text), but undici refuses characters past U+00FF and sends
 * the others as Latin-1: a value the API took must be one every send carries unchanged.
 */
export function isHeaderValue(value: string): boolean {
  // Empty is refused too: the relay (fixed_ip endpoints) never sends one, so neither may a direct send.
  if (value.length === 0) return false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const blank = code === 0x20 || code === 0x09;
    if (!blank && (code < 0x21 || code > 0x7e)) return false;
    if (blank && (i === 0 || i === value.length - 1)) return false;
  }
  return true;
}

/** Names Wirehook sets itself, or that belong to the connection (RFC 9110 §7.6.1): never the endpoint's. */
const RESERVED = new Set([
  'host',
  'user-agent',
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'cookie',
]);

/** Why `name` may not be a custom header, or null: not a token, Wirehook's, the body's (`content-*`) or the connection's. */
export function reservedHeaderProblem(name: string): string | null {
  const lower = name.toLowerCase();
  if (!TOKEN.test(name) || lower === '__proto__') return `${JSON.stringify(name)} is not a header name (letters, digits and !#$%&'*+-.^_\`|~)`;
  if (lower.startsWith('webhook-')) return `${name} is set by Wirehook (the webhook-* headers carry the signature)`;
  if (lower.startsWith('content-')) return `${name} describes the body, which Wirehook sets (content-* headers)`;
  if (RESERVED.has(lower)) return `${name} is set by Wirehook or by the connection, not by an endpoint`;
  return null;
}

/**
 * `headers` on create and PATCH: `{ name: value }`, at most MAX_ENDPOINT_HEADERS, names RFC 9110
 * tokens compared without case (one value each), values header-safe text, at most
 * MAX_ENDPOINT_HEADER_BYTES in all; none of the names Wirehook sets. Names come out lower-case.
 */
export const endpointHeadersInput = z
  .preprocess(
    (raw, ctx) => {
      // A JSON key `__proto__` would vanish in the record below (an object's prototype, not a key): refused, not dropped.
      if (typeof raw === 'object' && raw !== null && Object.hasOwn(raw, '__proto__')) {
        ctx.addIssue({ code: 'custom', path: ['__proto__'], message: '"__proto__" is not a header name', input: raw });
      }
      return raw;
    },
    z
      .record(z.string(), z.string({ error: 'each header value must be a string' }), { error: 'must be an object of header names to values, or null' })
      .superRefine((headers, ctx) => {
        const names = Object.keys(headers);
        if (names.length > MAX_ENDPOINT_HEADERS) {
          ctx.addIssue({ code: 'custom', message: `may have at most ${MAX_ENDPOINT_HEADERS} headers, got ${names.length}` });
          return;
        }
        const seen = new Set<string>();
        let bytes = 0;
        for (const name of names) {
          const value = headers[name]!;
          bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
          const reserved = reservedHeaderProblem(name);
          if (reserved !== null) ctx.addIssue({ code: 'custom', path: [name], message: reserved });
          if (seen.has(name.toLowerCase())) ctx.addIssue({ code: 'custom', path: [name], message: `${name} is given twice (header names ignore case)` });
          seen.add(name.toLowerCase());
          if (!isHeaderValue(value)) {
            ctx.addIssue({
              code: 'custom',
              path: [name],
              message: 'a header value is printable ASCII: no line breaks, control or non-ASCII characters, no space at either end, not empty',
            });
          }
        }
        if (bytes > MAX_ENDPOINT_HEADER_BYTES) {
          ctx.addIssue({ code: 'custom', message: `names and values may total at most ${MAX_ENDPOINT_HEADER_BYTES} bytes, got ${bytes}` });
        }
      }),
  )
  .transform((headers) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])))
  .describe(
    `headers sent with every webhook to this endpoint (at most ${MAX_ENDPOINT_HEADERS}, ${MAX_ENDPOINT_HEADER_BYTES} bytes in all, ` +
      'printable ASCII values; not webhook-*, content-*, host, user-agent, cookie or hop-by-hop headers); stored sealed, returned redacted; ' +
      'a PATCH replaces the whole set, null removes it',
  );

/** Values shorter than this are shown as `…` alone: their last 4 characters would give away too much of them. */
const SHOWN_FROM_CHARS = 12;

/** How a value is shown once stored: `…` and its last 4 characters (`…` alone for one shorter than 12). */
export function redactedHeaderValue(value: string): string {
  return value.length < SHOWN_FROM_CHARS ? '…' : `…${value.slice(-4)}`;
}

/** `headers` in responses: each name with its redacted value; null when the endpoint has none. */
export const endpointHeadersShown = z
  .record(z.string(), z.string())
  .nullable()
  .describe('custom headers sent with every webhook, each value redacted to its last 4 characters (…abcd); null: none');

/** What an endpoint stores of `headers` (names lower-case): the values sealed for `endpointId`, each shown redacted. */
export function sealEndpointHeaders(box: Pick<SecretBox, 'seal'>, endpointId: string, headers: Readonly<Record<string, string>>): EndpointHeaders {
  const shown = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, redactedHeaderValue(value)]));
  return { sealed: box.seal(JSON.stringify(headers), endpointId), shown };
}

/**
 * The headers an endpoint sends, opened. @throws UnsealError when the key ring does not open
 * them (as for its signing secret: the send is put off, not failed).
 */
export function openEndpointHeaders(box: Pick<SecretBox, 'open'>, endpointId: string, headers: EndpointHeaders): Record<string, string> {
  return JSON.parse(box.open(headers.sealed, endpointId)) as Record<string, string>;
}
