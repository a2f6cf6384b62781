// An endpoint's transformation (issue #45): the customer's JavaScript `function handler(webhook)`
// that reshapes each webhook before it goes to this endpoint. The code runs in
// @wirehook/transform's sandbox; the rules here are the ones every way in (API, portal, MCP) and
// every way out (a send, a simulation) share: what may be stored, and what a run may send.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { endpointHeadersInput } from './endpoint-headers.ts';
import { endpointUrl } from './endpoint-url.ts';
import { jsonProblem, MAX_JSON_DEPTH } from './json-value.ts';
import { MAX_PAYLOAD_BYTES } from './limits.ts';
import type { EndpointTransformation, Tenant } from './model.ts';
import { thousands } from './thousands.ts';

/** The longest transformation code, in UTF-8 bytes (issue #45). */
export const MAX_TRANSFORMATION_CODE_BYTES = 32_768;

/** `transformation.code`: JavaScript defining `function handler(webhook)`, at most MAX_TRANSFORMATION_CODE_BYTES. */
export const transformationCode = z
  .string({ error: 'must be a string of JavaScript defining function handler(webhook)' })
  .min(1, { error: 'must not be empty: define function handler(webhook)' })
  .superRefine((value, ctx) => {
    const problem = transformationCodeSizeProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

/** `transformation` on create and PATCH: `{ code, enabled }` (enabled defaults to true); null removes it. */
export const endpointTransformationInput = z
  .strictObject({
    code: transformationCode,
    enabled: z.boolean({ error: 'must be true or false' }).default(true),
  })
  .describe(
    'JavaScript defining function handler(webhook) run on each webhook before it is sent to this endpoint ' +
      `(code at most ${thousands(MAX_TRANSFORMATION_CODE_BYTES)} bytes); enabled: false keeps it without running it; null removes it`,
  );

/** The stored form of a transformation the API took: its code's hash beside it (see TransformationRef). */
export function storedTransformation(input: { code: string; enabled: boolean }): EndpointTransformation {
  return { code: input.code, enabled: input.enabled, sha256: transformationHash(input.code) };
}

/** SHA-256 of `code`'s UTF-8, hex. */
export function transformationHash(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

/** `transformation` in responses. */
export const endpointTransformationShown = z
  .object({ code: z.string(), enabled: z.boolean() })
  .nullable()
  .describe('the JavaScript run on each webhook before it is sent here (see POST /v1/endpoints/{id}/transformation/simulate); null: none');

/** Null when `code` is within MAX_TRANSFORMATION_CODE_BYTES, else the 422's words. */
export function transformationCodeSizeProblem(value: string): string | null {
  // A UTF-16 unit is at most 3 bytes of UTF-8: short code needs no count.
  if (value.length * 3 <= MAX_TRANSFORMATION_CODE_BYTES) return null;
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes <= MAX_TRANSFORMATION_CODE_BYTES) return null;
  return `must be at most ${thousands(MAX_TRANSFORMATION_CODE_BYTES)} bytes (UTF-8); it is ${thousands(bytes)}`;
}

/** What a transformation's `handler(webhook)` is given: the webhook about to be sent. */
export interface TransformInput {
  event_type: string;
  /** The message's payload (any JSON). */
  payload: unknown;
  /** The headers the caller would send besides its own (the endpoint's custom headers). */
  headers: Record<string, string>;
  /** The endpoint's URL. */
  url: string;
}

/**
 * What a run came to, as plain data. `ok: true` with `cancel: true`: the code asked for the
 * webhook not to be sent. `ok: true` with `cancel: false`: what the code returned, normalised —
 * `payload` as JSON.stringify made it, `headers` and `url` as returned (the input's when the
 * code left them out); the caller still applies its URL rules and header denylist. `ok: false`:
 * `error` is `transformation: <what went wrong>`, ending in `(line L, column C)` when a place
 * in the code is known.
 */
export type TransformResult =
  | { ok: true; cancel: true }
  | { ok: true; cancel: false; payload: unknown; headers: Record<string, string>; url: string }
  | { ok: false; error: string };

/**
 * Whose run it is, for the turns runs take when every sandbox thread is busy: by tenant first,
 * then by endpoint within the tenant, so a tenant with many endpoints gets one turn a round like
 * a tenant with one. `simulation`: the API's simulate route, not a send (bounded apart: see
 * TransformRunner).
 */
export interface TransformTurn {
  tenant: Tenant;
  endpointId: string;
  simulation: boolean;
}

/**
 * Runs transformations (the port: @wirehook/transform's TransformRunner is the adapter). `turn`
 * says whose turn a run waits in when the sandboxes are busy. Every failure of the code is a
 * result (`ok: false`); it throws only for faults of its own (closed, no thread, its wait limits).
 */
export interface Transformer {
  run(code: string, input: TransformInput, now: number, turn: TransformTurn): Promise<TransformResult>;
}

/**
 * A run that could not be made, for a reason of Wirehook's, not the code's: no sandbox thread
 * free within the caller's wait, the sandbox closed or not starting. The send is put off (no
 * attempt: the endpoint is not at fault).
 */
export class TransformerUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransformerUnavailableError';
  }
}

/** What a run returned, ok and not cancelled. */
export type TransformedWebhook = Omit<Extract<TransformResult, { cancel: false }>, 'ok' | 'cancel'>;

/** What a run may send: the payload as JSON text, headers by the custom-header rules (lower-case names), the URL by the endpoint URL rules. */
export interface CheckedTransformation {
  payloadJson: string;
  headers: Record<string, string>;
  url: string;
}

/**
 * Checks what a transformation returned against the rules a webhook to this endpoint keeps
 * anyway: `url` by the endpoint URL rules (https, port 443 or 8443, no credentials; addresses are
 * the egress's at connect time), `headers` by the custom-header rules (never webhook-*, content-*,
 * host or hop-by-hop; 20 at most, 4,096 bytes), the payload at most MAX_PAYLOAD_BYTES of JSON
 * (what the API takes from a sender); a listener's (`listenerUrl`) must stay as it is, and is no
 * endpoint URL (it is where `wirehook listen` forwards). `redacted`: header values a simulation gave the code in
 * place of stored ones (`…abcd`, not header-safe text): a header left with one is checked as a
 * stored value would be (it was, when stored), and returned as given. @returns the checked
 * request, or the attempt's `transformation: …` error.
 */
export function checkTransformedWebhook(
  result: TransformedWebhook,
  redacted: ReadonlySet<string> = new Set(),
  listenerUrl?: string,
  tokenOrigin?: string | null,
): CheckedTransformation | { error: string } {
  // A listener's URL is where `wirehook listen` forwards on the developer's machine (http, any
  // port): not an endpoint URL, and the code may not change it at all.
  if (listenerUrl !== undefined && result.url !== listenerUrl) return { error: LISTENER_URL_ERROR };
  const url = listenerUrl !== undefined ? { success: true as const, data: listenerUrl } : endpointUrl.safeParse(result.url);
  if (!url.success) return { error: `transformation: the returned url ${result.url.slice(0, 200)} is refused: ${issuesOf(url.error)}` };
  // An endpoint with `auth` sends its OAuth token only to the origin its secret was given for
  // (as a PATCH of its URL must give the secret again to move it): the code may change the path.
  if (tokenOrigin && new URL(url.data).origin !== tokenOrigin) {
    return {
      error:
        `transformation: the returned url ${result.url.slice(0, 200)} is at another origin than the endpoint's (${tokenOrigin}): ` +
        'an endpoint with auth sends its OAuth token only there',
    };
  }
  // A redacted stand-in is checked as the stored value it stands for was (header-safe text).
  const asStored = redacted.size === 0 ? result.headers : mapValues(result.headers, (value) => (redacted.has(value) ? 'stored-value' : value));
  const checked = endpointHeadersInput.safeParse(asStored);
  if (!checked.success) return { error: `transformation: the returned headers are refused: ${issuesOf(checked.error)}` };
  const headers = redacted.size === 0 ? checked.data : Object.fromEntries(Object.entries(result.headers).map(([name, value]) => [name.toLowerCase(), value]));
  // Before its text is made (deep enough, that stringify exhausts the stack): twice a sender's bound,
  // so code may wrap a payload nested to it (and one stored before the bound, at most 2,000 deep, is
  // refused here only past 256). TRANSFORMED_JSON_DEPTH.
  const problem = jsonProblem(result.payload, TRANSFORMED_JSON_DEPTH);
  if (problem !== undefined) return { error: `transformation: the returned payload ${problem}` };
  const payloadJson = JSON.stringify(result.payload);
  if (payloadJson === undefined) return { error: 'transformation: the returned payload is not JSON' };
  // Counted only when it could be over: a UTF-16 unit is 1 to 3 bytes of UTF-8.
  if (payloadJson.length * 3 > MAX_PAYLOAD_BYTES) {
    const bytes = payloadJson.length > MAX_PAYLOAD_BYTES ? payloadJson.length : Buffer.byteLength(payloadJson, 'utf8');
    if (bytes > MAX_PAYLOAD_BYTES) {
      return {
        error: `transformation: the returned payload is ${thousands(bytes)} bytes of JSON; at most ${thousands(MAX_PAYLOAD_BYTES)}`,
      };
    }
  }
  // Sent and recorded as the URL parser reads it (whitespace and line breaks a parser drops are gone).
  return { payloadJson, headers, url: listenerUrl ?? new URL(url.data).href };
}

function mapValues(record: Record<string, string>, change: (value: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([name, value]) => [name, change(value)]));
}

function issuesOf(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');
}

/** How deep a transformation's returned payload may nest: twice MAX_JSON_DEPTH (it may wrap a sender's). */
export const TRANSFORMED_JSON_DEPTH = 2 * MAX_JSON_DEPTH;

/** A listener endpoint's transformation may not move its URL (where `wirehook listen` forwards). */
export const LISTENER_URL_ERROR = "transformation: a listener endpoint's url cannot be changed (it is where `wirehook listen` forwards)";

/** A transformation's run, checked: what to send, a cancel, or the attempt's `transformation: …` error. */
export type TransformationOutcome = { kind: 'send'; request: CheckedTransformation } | { kind: 'cancel' } | { kind: 'error'; error: string };

/** What a transformation may not move of its endpoint's URL (urlBoundsOf). */
export interface UrlBounds {
  /** A listener endpoint: its URL (where `wirehook listen` forwards) stays as it is. */
  listener: boolean;
  /** An endpoint with `auth`: the origin its OAuth token goes to, which the URL keeps; null: any. */
  tokenOrigin: string | null;
}

/** The bounds a transformation's URL keeps for `endpoint` (a send's and a simulation's alike). */
export function urlBoundsOf(endpoint: { type?: string | undefined; url: string; auth?: unknown }): UrlBounds {
  const listener = endpoint.type === 'listen';
  return { listener, tokenOrigin: !listener && endpoint.auth ? new URL(endpoint.url).origin : null };
}

/**
 * Runs `code` on `input` and checks what it returned (checkTransformedWebhook): the one path of
 * a send and of a simulation, so a simulation says what a send would do. `turn`: whose turn the
 * run waits in. `bounds`: what of the URL the code may not change (urlBoundsOf); `redacted`: see
 * checkTransformedWebhook.
 */
export async function runTransformation(
  transformer: Transformer,
  code: string,
  input: TransformInput,
  now: number,
  turn: TransformTurn,
  bounds: UrlBounds,
  redacted?: ReadonlySet<string>,
): Promise<TransformationOutcome> {
  const result = await transformer.run(code, input, now, turn);
  if (!result.ok) return { kind: 'error', error: result.error };
  if (result.cancel) return { kind: 'cancel' };
  const checked = checkTransformedWebhook(result, redacted, bounds.listener ? input.url : undefined, bounds.tokenOrigin);
  return 'error' in checked ? { kind: 'error', error: checked.error } : { kind: 'send', request: checked };
}
