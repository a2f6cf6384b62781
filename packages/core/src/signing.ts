import { createHmac, createSecretKey, KeyObject } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
// Standard base64 alphabet, padding optional (secrets are accepted unpadded, as the
// official libraries do).
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * An HMAC key: the raw bytes, or a `KeyObject` made once with {@link signingKeyObject}.
 * `createHmac` imports a raw key on every call (about 5× the cost of the HMAC of a 1 KB
 * body), so whoever signs many messages with one key keeps a KeyObject.
 */
export type SigningKey = Buffer | KeyObject;

/** How the extra provider-style signature header is built (an endpoint's `compat_signature`). */
export interface CompatSignatureConfig {
  /** Name of the extra header; the caller sets it to the value returned. */
  header: string;
  /** `body`: the exact body; `timestamp_body`: `{webhook-timestamp}.{body}`. */
  content: 'body' | 'timestamp_body';
  /** Lowercase `hex` or standard padded `base64`. */
  encoding: 'hex' | 'base64';
  /** Put before each encoded MAC; default empty. */
  prefix?: string | undefined;
}

/**
 * The HMAC key of a Standard Webhooks secret: the base64-decoded part after `whsec_`
 * (the prefix is optional, padding too). Throws an Error when the secret is empty or
 * the part after the prefix is not base64.
 */
export function signatureKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded === '') throw new Error("signing secret can't be empty");
  const unpadded = encoded.replace(/=+$/, '');
  const badPadding = encoded.length !== unpadded.length && encoded.length % 4 !== 0;
  if (!BASE64.test(encoded) || unpadded.length % 4 === 1 || badPadding) {
    throw new Error('signing secret must be whsec_ followed by base64');
  }
  return Buffer.from(unpadded, 'base64');
}

/**
 * The `webhook-signature` header value: `v1,<base64 HMAC-SHA256>` of
 * `{msgId}.{timestampSeconds}.{body}` for each key, in the order given (newest first),
 * separated by one space. Throws an Error when `keys` is empty or holds an empty key,
 * or when `timestampSeconds` is not a non-negative integer.
 */
export function standardSignature(keys: readonly SigningKey[], msgId: string, timestampSeconds: number, body: string | Buffer): string {
  checkKeys(keys);
  checkTimestamp(timestampSeconds);
  const prefix = `${msgId}.${timestampSeconds}.`;
  return keys.map((key) => `v1,${mac(key, prefix, body).toString('base64')}`).join(' ');
}

/**
 * The value of an endpoint's compatible signature header (docs/semantics.md, "Compatible
 * signature"): `prefix + encode(HMAC-SHA256(key, content))` per key, space-separated, in
 * the order given. Throws as {@link standardSignature} does.
 */
export function compatSignature(config: CompatSignatureConfig, keys: readonly SigningKey[], timestampSeconds: number, body: string | Buffer): string {
  checkKeys(keys);
  checkTimestamp(timestampSeconds);
  const prefix = config.content === 'timestamp_body' ? `${timestampSeconds}.` : '';
  return keys.map((key) => `${config.prefix ?? ''}${mac(key, prefix, body).toString(config.encoding)}`).join(' ');
}

/** The user-agent of every request Wirehook sends (webhooks and notices): `<service_name>/1`. */
export const USER_AGENT = 'Wirehook/1';

/**
 * The headers of a Standard Webhooks request: `webhook-id`, `webhook-timestamp` (seconds),
 * one `v1,` signature per key, JSON content type, our user-agent. Deliveries and webhook
 * notices both go out with these.
 */
export function standardWebhookHeaders(keys: readonly SigningKey[], msgId: string, nowMs: number, body: string): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature(keys, msgId, timestamp, body),
    'user-agent': USER_AGENT,
  };
}

/**
 * The exact request body of a delivery:
 * `{"type":<eventType>,"timestamp":"<ISO 8601 UTC of createdAtMs>","data":<payloadJson>}`.
 * `payloadJson` must be JSON text; it is inserted verbatim (not re-parsed or re-encoded),
 * so the bytes signed are the bytes stored. Throws a RangeError when `createdAtMs` is not
 * a valid time.
 */
export function webhookBody(eventType: string, createdAtMs: number, payloadJson: string): string {
  const timestamp = new Date(createdAtMs).toISOString();
  return `{"type":${JSON.stringify(eventType)},"timestamp":"${timestamp}","data":${payloadJson}}`;
}

/** The `KeyObject` of a Standard Webhooks secret; throws as {@link signatureKey} does. */
export function signingKeyObject(secret: string): KeyObject {
  return createSecretKey(signatureKey(secret));
}

function mac(key: SigningKey, prefix: string, body: string | Buffer): Buffer {
  return createHmac('sha256', key).update(prefix, 'utf8').update(body).digest();
}

function checkKeys(keys: readonly SigningKey[]): void {
  if (keys.length === 0) throw new Error('at least one signing key is needed');
  if (keys.some((key) => (key instanceof KeyObject ? key.symmetricKeySize : key.length) === 0)) {
    throw new Error("a signing key can't be empty");
  }
}

function checkTimestamp(timestampSeconds: number): void {
  // Receivers parse the header as an integer of seconds (Standard Webhooks).
  if (typeof timestampSeconds !== 'number' || !Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error(`webhook timestamp must be a non-negative integer of seconds, got ${String(timestampSeconds)}`);
  }
}
