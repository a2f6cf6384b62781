import { WebhookVerificationError } from './verification-error.ts';

/** The request body exactly as received: text, or bytes. */
export type RawBody = string | Uint8Array | ArrayBuffer;

/** How to get the raw body in each framework; appended to messages about a body that is not raw. */
export const RAW_BODY_HOWTO =
  'Express: mount express.raw({ type: "application/json", limit: "2mb" }) on the webhook route ' +
  '(its default limit, 100 kB, refuses larger payloads), or put expressWebhook() before express.json(); ' +
  "Fastify: call verifyWebhooks(scope) in the webhook routes' scope; " +
  'Next.js, Hono, Cloudflare Workers, Deno, Bun: verifyRequest(request) or await request.text(); ' +
  "Node's http: verifyNodeRequest(req).";

/**
 * The bytes of a raw body. Throws a `body_not_raw` {@link WebhookVerificationError} when
 * given anything else, typically the object a JSON body parser made: the signature covers
 * the exact bytes sent, which can't be recovered from a parsed object.
 */
export function rawBodyBytes(payload: unknown): Buffer {
  if (typeof payload === 'string') {
    if (payload === '[object Object]') throw notRaw('the body is the string "[object Object]": an object was converted to a string');
    return Buffer.from(payload, 'utf8');
  }
  if (payload instanceof Uint8Array) return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  if (payload instanceof ArrayBuffer) return Buffer.from(payload);
  throw notRaw(`the body is ${describe(payload)}, not the raw request body`);
}

function describe(payload: unknown): string {
  if (payload === undefined) return 'undefined (no body was read)';
  if (payload === null) return 'null';
  return typeof payload === 'object' ? 'an already-parsed object' : `a ${typeof payload}`;
}

/** A `body_not_raw` error: `problem`, why it matters, and the fix per framework. */
export function notRaw(problem: string): WebhookVerificationError {
  return new WebhookVerificationError(
    'body_not_raw',
    `${problem}. The signature covers the exact bytes Wirehook sent; parsing and re-serializing changes them, so verify the raw body. ${RAW_BODY_HOWTO}`,
  );
}
