// How a NatsBus proves who it is to nats-server: plain data (what the operator configured,
// parsed once by packages/platform's natsConnection), turned here into nats.js's
// authenticators and TLS options. Secrets are never put into an error message or a log line.
import { readFileSync } from 'node:fs';
import {
  type Authenticator,
  credsAuthenticator,
  errors,
  nkeyAuthenticator,
  type TlsOptions,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
} from '@nats-io/transport-node';

/**
 * One way to authenticate (nats-server accepts one per connection):
 * - `user`: NATS_USER + NATS_PASSWORD, or `user:password@` in NATS_URL (nats.js v3 drops
 *   user info from a URL, so it is passed as `user`/`pass`);
 * - `token`: NATS_TOKEN (or `token@` in NATS_URL);
 * - `nkey`: NATS_NKEY_SEED_FILE, a file holding a user nkey seed (`SU…`);
 * - `creds`: NATS_CREDS_FILE, a `.creds` file (user JWT and nkey seed; operator mode, e.g. Synadia Cloud).
 * The files are read again at every (re)connect, so a rotated Secret is picked up without a restart.
 */
export type NatsAuth =
  | { readonly kind: 'none' }
  | { readonly kind: 'user'; readonly user: string; readonly password: string; readonly fromUrl: boolean }
  | { readonly kind: 'token'; readonly token: string; readonly fromUrl: boolean }
  | { readonly kind: 'nkey'; readonly seedFile: string }
  | { readonly kind: 'creds'; readonly credsFile: string };

/**
 * TLS towards nats-server (NATS_TLS_*). Any field, or a `tls://` URL, turns TLS on; `caFile`
 * is the CA to trust instead of the system's; `certFile` + `keyFile` a client certificate
 * (for a server run with `verify: true`).
 */
export interface NatsTls {
  readonly caFile?: string | undefined;
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
}

/** The connection options nats.js takes for `auth` and `tls` (its `servers` carry no user info). */
export function natsAuthOptions(auth: NatsAuth, tls: NatsTls | undefined): { user?: string; pass?: string; authenticator?: Authenticator; tls?: TlsOptions } {
  const options: { user?: string; pass?: string; authenticator?: Authenticator; tls?: TlsOptions } = {};
  switch (auth.kind) {
    case 'none':
      break;
    case 'user':
      options.authenticator = usernamePasswordAuthenticator(auth.user, auth.password);
      break;
    case 'token':
      options.authenticator = tokenAuthenticator(auth.token);
      break;
    case 'nkey':
      // Trimmed: a Secret mounted from `kubectl create secret --from-file` often ends in a newline.
      options.authenticator = nkeyAuthenticator(() => new TextEncoder().encode(readFileSync(auth.seedFile, 'utf8').trim()));
      break;
    case 'creds':
      options.authenticator = credsAuthenticator(() => readFileSync(auth.credsFile));
      break;
  }
  if (tls && (tls.caFile || tls.certFile || tls.keyFile)) {
    options.tls = {
      ...(tls.caFile ? { caFile: tls.caFile } : {}),
      ...(tls.certFile ? { certFile: tls.certFile } : {}),
      ...(tls.keyFile ? { keyFile: tls.keyFile } : {}),
    };
  }
  return options;
}

/** What to check when nats-server refuses the credentials, by the variables they came from. */
export function authHint(auth: NatsAuth): string {
  switch (auth.kind) {
    case 'none':
      return 'the server requires credentials: set NATS_USER/NATS_PASSWORD, NATS_TOKEN, NATS_NKEY_SEED_FILE or NATS_CREDS_FILE';
    case 'user':
      return auth.fromUrl ? 'check the user:password in NATS_URL' : 'check NATS_USER/NATS_PASSWORD';
    case 'token':
      return auth.fromUrl ? 'check the token in NATS_URL' : 'check NATS_TOKEN';
    case 'nkey':
      return `check NATS_NKEY_SEED_FILE (${auth.seedFile}): is its public key a user of the server?`;
    case 'creds':
      return `check NATS_CREDS_FILE (${auth.credsFile}): is the user JWT valid and its account known to the server?`;
  }
}

/**
 * A refusal no retry cures (wrong credentials, a server certificate not trusted): start-up
 * fails at once with this one line, which names NATS and the URL without its password.
 * `retryable: false` is what connectWithRetry (packages/platform) looks for.
 */
export class NatsConnectRefusedError extends Error {
  override readonly name = 'NatsConnectRefusedError';
  readonly retryable = false;
}

/** `err` as a NatsConnectRefusedError when it is one no retry cures; else undefined. */
export function refusal(err: unknown, url: string, auth: NatsAuth, tls: NatsTls | undefined): NatsConnectRefusedError | undefined {
  if (err instanceof errors.AuthorizationError || err instanceof errors.UserAuthenticationExpiredError) {
    const what = err instanceof errors.UserAuthenticationExpiredError ? 'user authentication expired' : 'authorization violation';
    return new NatsConnectRefusedError(`NATS at ${url}: ${what} — ${authHint(auth)}`);
  }
  const code = (err as { code?: unknown } | undefined)?.code ?? (err as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (typeof code === 'string' && TLS_CERT_CODES.has(code)) {
    const ca = tls?.caFile ? `NATS_TLS_CA_FILE (${tls.caFile})` : 'NATS_TLS_CA_FILE (unset: the system CAs are trusted)';
    return new NatsConnectRefusedError(`NATS at ${url}: the server's TLS certificate is not trusted (${code}) — check ${ca}`);
  }
  if (/tls/i.test(message) && /(required|not available)/i.test(message)) {
    return new NatsConnectRefusedError(`NATS at ${url}: ${message} — check the URL scheme (tls://) and NATS_TLS_* against the server's tls block`);
  }
  return undefined;
}

/** Node's certificate verification failures: retrying does not change the certificate. */
const TLS_CERT_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** `url` with user and password left out (nats.js would drop them anyway; a log must never show them). */
export function redactNatsUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(unparsable URL)';
  }
}
