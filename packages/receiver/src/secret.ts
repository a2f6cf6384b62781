import { WebhookVerificationError } from './verification-error.ts';

const SECRET_PREFIX = 'whsec_';
// Standard base64, padding optional: the official libraries accept unpadded secrets.
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** One endpoint signing secret (`whsec_…`), or several during a rotation on your side. */
export type WebhookSecret = string | readonly string[];

/**
 * The HMAC keys of the secrets given: the base64-decoded part after `whsec_` (the prefix
 * may be left out, as in the official libraries). Throws a `bad_secret_format`
 * {@link WebhookVerificationError} naming the likely mix-up: an API key, a signature, an
 * unset environment variable, stray quotes or whitespace.
 */
export function secretKeys(secret: WebhookSecret): Buffer[] {
  const secrets: readonly unknown[] = Array.isArray(secret) ? secret : [secret];
  if (secrets.length === 0) throw badSecret('no secret was given (the list of secrets is empty)');
  return secrets.map((one, index) => secretKey(one, secrets.length > 1 ? `secret #${index + 1}` : 'the secret'));
}

function secretKey(secret: unknown, label: string): Buffer {
  if (typeof secret !== 'string') {
    throw badSecret(`${label} is ${secret === undefined ? 'undefined' : `a ${typeof secret}`}, not a string: is the environment variable holding it set?`);
  }
  const problem = misuse(secret);
  if (problem !== undefined) throw badSecret(`${label} ${problem}`);
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!isBase64(encoded)) throw badSecret(`${label} is not whsec_ followed by base64: copy the whole secret exactly as Wirehook showed it`);
  return Buffer.from(encoded, 'base64');
}

/** What the string evidently is instead of a signing secret, if it is recognisably something else. */
function misuse(secret: string): string | undefined {
  if (secret === '') return 'is empty: is the environment variable holding it set?';
  if (secret !== secret.trim()) return 'has leading or trailing whitespace (a newline from a file or .env?): trim it';
  if (/^["'`]|["'`]$/.test(secret)) return 'is wrapped in quotes: remove them (a .env file or JSON config often keeps them)';
  if (secret.startsWith('sk_')) {
    return (
      "is a Wirehook API key (sk_…), which authenticates calls to Wirehook's API; verifying webhooks needs the endpoint's signing secret " +
      '(whsec_…), shown when the endpoint is created and when its secret is rotated'
    );
  }
  if (/^v1a?,/.test(secret)) return 'is a signature (the value of the webhook-signature header), not the signing secret (whsec_…)';
  if (/^whs[kp]_/.test(secret)) return 'is an asymmetric (Ed25519) key; Wirehook signs with HMAC and a whsec_ secret';
  return undefined;
}

function isBase64(encoded: string): boolean {
  const unpadded = encoded.replace(/=+$/, '');
  const padded = encoded.length !== unpadded.length;
  return BASE64.test(encoded) && unpadded.length % 4 !== 1 && (!padded || encoded.length % 4 === 0);
}

function badSecret(message: string): WebhookVerificationError {
  return new WebhookVerificationError('bad_secret_format', message);
}
