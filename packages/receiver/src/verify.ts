import { type HeadersLike, headerValue } from './headers.ts';
import { type RawBody, rawBodyBytes } from './raw-body.ts';
import { secretKeys, type WebhookSecret } from './secret.ts';
import { signatureMismatch } from './signature-mismatch.ts';
import { type CompatSignatureOptions, signatureScheme } from './signature-scheme.ts';
import { WebhookVerificationError } from './verification-error.ts';

/** The body Wirehook sends: `{ type, timestamp, data }`. */
export interface WebhookEvent<Data = unknown> {
  /** The message's event type. */
  type: string;
  /** When the message was created, ISO 8601 UTC; the same on every retry. */
  timestamp: string;
  /** The message's payload. */
  data: Data;
}

/** A verified webhook. */
export interface VerifiedWebhook<Data = unknown> {
  /** `webhook-id`: the same on every retry of a message, so drop ids already processed. */
  id: string;
  /** `webhook-timestamp`: when this attempt was sent, Unix seconds. */
  timestamp: number;
  /** The parsed body. Its shape is not checked beyond being JSON. */
  event: WebhookEvent<Data>;
  /** The exact body that was verified, as text. */
  body: string;
}

/** Options of {@link verify} and of every adapter. */
export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, either way; default 300 (5 minutes). */
  toleranceSeconds?: number | undefined;
  /** The current time in milliseconds, like `Date.now` (the default); for tests. */
  now?: (() => number) | undefined;
  /** Check the endpoint's compat signature header instead of `webhook-signature`. */
  compat?: CompatSignatureOptions | undefined;
}

/** The default of {@link VerifyOptions.toleranceSeconds}: the official libraries' 5 minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Verifies a Wirehook (Standard Webhooks) request and returns it parsed. `payload` must be
 * the raw body, exactly as received; `secret` is the endpoint's `whsec_…` secret, or a list
 * of them (any may match). Throws a {@link WebhookVerificationError} whose `reason` says
 * what failed and whose message says why.
 */
export function verify<Data = unknown>(payload: RawBody, headers: HeadersLike, secret: WebhookSecret, options: VerifyOptions = {}): VerifiedWebhook<Data> {
  const body = rawBodyBytes(payload);
  const keys = secretKeys(secret);
  const scheme = signatureScheme(options.compat);
  const id = requiredHeader(headers, 'webhook-id');
  const timestamp = parseTimestamp(requiredHeader(headers, 'webhook-timestamp'));
  const signatures = scheme.signatures(requiredHeader(headers, scheme.header));
  checkTolerance(timestamp, options);
  if (!scheme.matches(keys, signatures, id, timestamp, body)) {
    throw signatureMismatch({ scheme, keys, signatures, id, timestamp, body });
  }
  const text = body.toString('utf8');
  return { id, timestamp, event: parseEvent<Data>(text), body: text };
}

function requiredHeader(headers: HeadersLike, name: string): string {
  const value = headerValue(headers, name);
  if (value !== undefined && value !== '') return value;
  const why = name.startsWith('webhook-')
    ? 'Wirehook sends webhook-id, webhook-timestamp and webhook-signature with every request: ' +
      'is this request from Wirehook, and does every proxy in front of this server pass these headers on?'
    : "is the endpoint's compat_signature configured in Wirehook with this header name?";
  throw new WebhookVerificationError('missing_header', `the ${name} header is missing: ${why}`);
}

function parseTimestamp(value: string): number {
  const seconds = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(seconds)) {
    throw new WebhookVerificationError('invalid_header', `webhook-timestamp must be an integer of Unix seconds, got ${JSON.stringify(value.slice(0, 40))}`);
  }
  return seconds;
}

function checkTolerance(timestamp: number, options: VerifyOptions): void {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  // NaN or Infinity (an unset environment variable through Number()) would turn the replay window off.
  if (!Number.isFinite(tolerance) || tolerance < 0) throw new TypeError(`toleranceSeconds must be a finite number of seconds, 0 or more; got ${tolerance}`);
  const age = Math.floor((options.now ?? Date.now)() / 1000) - timestamp;
  if (age > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `webhook-timestamp is ${age} s in the past, beyond the tolerance of ${tolerance} s: this server's clock is ahead (sync it with NTP), ` +
        'or the request is a replay (Wirehook signs every attempt, retries included, when it sends it)',
    );
  }
  if (-age > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `webhook-timestamp is ${-age} s in the future, beyond the tolerance of ${tolerance} s: this server's clock is behind (sync it with NTP)`,
    );
  }
}

function parseEvent<Data>(text: string): WebhookEvent<Data> {
  try {
    return JSON.parse(text) as WebhookEvent<Data>;
  } catch (err) {
    throw new WebhookVerificationError('invalid_body', `the signature is valid but the body is not JSON (${(err as Error).message})`);
  }
}
