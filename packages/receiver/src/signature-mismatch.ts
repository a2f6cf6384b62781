import { RAW_BODY_HOWTO } from './raw-body.ts';
import type { SignatureScheme } from './signature-scheme.ts';
import { WebhookVerificationError } from './verification-error.ts';

/** A message whose signatures did not match, as its scheme and header gave it. */
export interface UnmatchedMessage {
  scheme: SignatureScheme;
  keys: readonly Buffer[];
  signatures: readonly string[];
  id: string;
  timestamp: number;
  body: Buffer;
}

/**
 * The error for a message none of whose signatures matched, with the likeliest cause.
 * Wirehook sends compact JSON (its own `JSON.stringify` output), so a body that is not
 * compact was re-encoded on the way; when a signature matches the body's compact form,
 * that is proven (`body_reencoded`). The compact form is only a diagnosis: it is never
 * accepted.
 */
export function signatureMismatch(message: UnmatchedMessage): WebhookVerificationError {
  const { scheme, keys, signatures } = message;
  if (signatures.length === 0) {
    return new WebhookVerificationError('no_matching_signature', `the ${scheme.header} header holds no signature of the form ${scheme.format}`);
  }
  const compact = compactJson(message.body);
  if (compact !== undefined && scheme.matches(keys, signatures, message.id, message.timestamp, compact)) {
    return new WebhookVerificationError(
      'body_reencoded',
      'no signature matches the body given, but one matches its compact JSON form: ' +
        'the body was re-encoded (parsed and re-serialized, e.g. pretty-printed) after it arrived. ' +
        `Verify the raw request body, byte for byte. ${RAW_BODY_HOWTO}`,
    );
  }
  const none = `none of the ${count(signatures.length, 'signature')} in ${scheme.header} matches this body with the ${count(keys.length, 'secret')} given`;
  const cause =
    compact === undefined
      ? "check that the secret is this endpoint's own (each endpoint has its own whsec_ secret) and current (after a rotation, the new one), " +
        'and that the body is the raw request body, unmodified'
      : 'the body is not compact JSON, which is how Wirehook sends it, so it was probably re-encoded (e.g. by a body parser): ' +
        `verify the raw request body. ${RAW_BODY_HOWTO} If it is raw, check the secret`;
  return new WebhookVerificationError('no_matching_signature', `${none}: ${cause}`);
}

/** The body re-serialized as compact JSON, or undefined when it is not JSON or already compact. */
function compactJson(body: Buffer): Buffer | undefined {
  const text = body.toString('utf8');
  let compact: string;
  try {
    compact = JSON.stringify(JSON.parse(text));
  } catch {
    return undefined;
  }
  return compact === text ? undefined : Buffer.from(compact, 'utf8');
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
