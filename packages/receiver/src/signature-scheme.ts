import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * An endpoint's provider-style extra signature header (its `compat_signature` in
 * Wirehook): `prefix + encode(HMAC-SHA256(key, content))`, one per valid secret,
 * space-separated.
 */
export interface CompatSignatureOptions {
  /** Name of the header, any case. */
  header: string;
  /** `body`: the exact body; `timestamp_body`: `{webhook-timestamp}.{body}`. */
  content: 'body' | 'timestamp_body';
  /** `hex` (lowercase) or `base64` (standard, padded). */
  encoding: 'hex' | 'base64';
  /** Put before each encoded MAC, e.g. `sha256=`; default empty. */
  prefix?: string | undefined;
}

/** Where a message's signatures are and how to check them. */
export interface SignatureScheme {
  /** The lowercase name of the header carrying the signatures. */
  readonly header: string;
  /** What one signature looks like, for messages, e.g. `v1,<base64>`. */
  readonly format: string;
  /** The signatures in the header's value that this scheme can check. */
  signatures(headerValue: string): string[];
  /** Whether any of `signatures` is the one a key of `keys` gives for this message. */
  matches(keys: readonly Buffer[], signatures: readonly string[], id: string, timestamp: number, body: Buffer): boolean;
}

/**
 * Standard Webhooks (`webhook-signature: v1,<base64 HMAC of "{id}.{timestamp}.{body}">`),
 * or, given `compat`, the endpoint's compat header instead. Comparisons are constant-time.
 */
export function signatureScheme(compat?: CompatSignatureOptions): SignatureScheme {
  if (compat === undefined) return hmacScheme('webhook-signature', 'v1,', 'base64', (id, ts) => `${id}.${ts}.`);
  const signedPrefix = compat.content === 'timestamp_body' ? (_id: string, ts: number) => `${ts}.` : () => '';
  return hmacScheme(compat.header.toLowerCase(), compat.prefix ?? '', compat.encoding, signedPrefix);
}

function hmacScheme(header: string, prefix: string, encoding: 'hex' | 'base64', signedPrefix: (id: string, timestamp: number) => string): SignatureScheme {
  return {
    header,
    format: `${prefix}<${encoding}>`,
    signatures: (value) =>
      value
        .split(' ')
        .filter((s) => s !== '' && s.startsWith(prefix))
        .map((s) => s.slice(prefix.length)),
    matches(keys, signatures, id, timestamp, body) {
      return keys.some((key) => {
        const expected = createHmac('sha256', key).update(signedPrefix(id, timestamp), 'utf8').update(body).digest(encoding);
        return signatures.some((signature) => constantTimeEqual(expected, signature));
      });
    },
  };
}

function constantTimeEqual(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  // Every expected MAC of a scheme has the same length, so comparing lengths first leaks nothing.
  return a.length === b.length && timingSafeEqual(a, b);
}
