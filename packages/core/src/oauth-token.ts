// An OAuth 2.0 access token for an endpoint (RFC 6749's client credentials grant): the request a
// send makes for one, and how its answer is read. Apart from endpoint-auth.ts, whose API schemas
// (zod) the egress thread that asks for tokens never needs (without-schemas.ts says why).
import type { OAuthTokenAuthMethod } from './model.ts';
import { USER_AGENT } from './signing.ts';

/** The client credentials as a token request uses them: the secret opened. */
export interface OAuthClientCredentials {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope: string | null;
  audience: string | null;
  tokenAuthMethod: OAuthTokenAuthMethod;
}

/** Most bytes of a token response read: a JWT with many claims fits; a larger answer is not a token response. */
export const TOKEN_RESPONSE_MAX_BYTES = 16_384;

/**
 * The token request of RFC 6749 §4.4.2: a form POST of `grant_type=client_credentials` (and the
 * scope and audience), the client authenticated by HTTP Basic with the form-encoded id and secret
 * (§2.3.1) or by both in the body.
 */
export function oauthTokenRequest(c: OAuthClientCredentials): { url: string; headers: Record<string, string>; body: string } {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (c.scope !== null) form.set('scope', c.scope);
  if (c.audience !== null) form.set('audience', c.audience);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
    'user-agent': USER_AGENT,
  };
  if (c.tokenAuthMethod === 'client_secret_basic') {
    const pair = `${formEncode(c.clientId)}:${formEncode(c.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
  } else {
    form.set('client_id', c.clientId);
    form.set('client_secret', c.clientSecret);
  }
  return { url: c.tokenUrl, headers, body: form.toString() };
}

/** application/x-www-form-urlencoded of one value (spaces as +), as §2.3.1 asks of the Basic pair. */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/** A token that lives less than this is used for half its life instead of until 60 s before it ends. */
const SHORT_TOKEN_S = 120;
/** How long before its expiry a token stops being used. */
export const TOKEN_EXPIRY_MARGIN_S = 60;
/** The longest a token is used, whatever its expires_in. */
export const TOKEN_MAX_LIFETIME_S = 86_400;
/** A token response without `expires_in`: used this long (a 401 fetches a new one sooner). */
export const TOKEN_DEFAULT_LIFETIME_S = 300;
/** Most characters of the token endpoint's answer quoted in an attempt's error. */
const QUOTED_BODY_CHARS = 300;

/** A token as the dispatcher keeps it. */
export interface AccessToken {
  token: string;
  /** Unix ms after which it is not used (60 s before it expires). */
  usableUntil: number;
}

/**
 * Reads the token endpoint's answer (RFC 6749 §5.1, §5.2) at `now`: the access token and until
 * when to use it, or an attempt error `auth: …` a person can act on — the status and the start of
 * the body for a refusal (never the body of a 2xx answer: it may hold a token).
 */
export function readTokenResponse(answer: { status: number; body: string }, now: number, secrets: readonly string[] = []): AccessToken | { error: string } {
  if (answer.status < 200 || answer.status >= 300) {
    const quoted = quotedRefusal(answer.body, secrets);
    return { error: `auth: token endpoint answered ${answer.status}${quoted === '' ? '' : `: ${quoted}`}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    return { error: `auth: token endpoint answered ${answer.status} without a JSON token response (or one over ${TOKEN_RESPONSE_MAX_BYTES} bytes)` };
  }
  const fields = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const token = fields['access_token'];
  if (typeof token !== 'string' || token === '' || !/^[\x21-\x7e]+$/.test(token)) {
    return { error: 'auth: the token response has no access_token a header can carry (printable ASCII)' };
  }
  const type = fields['token_type'];
  if (typeof type === 'string' && type.toLowerCase() !== 'bearer')
    return { error: `auth: the token is of type ${JSON.stringify(type.slice(0, 40))}, not Bearer` };
  const given = Number(fields['expires_in'] ?? TOKEN_DEFAULT_LIFETIME_S);
  if (!Number.isFinite(given) || given <= 0) return { error: 'auth: the token response has an expires_in that is not a positive number' };
  // A day at most: a token "valid for ever" is still fetched again daily (and a 401 sooner).
  const expiresIn = Math.min(given, TOKEN_MAX_LIFETIME_S);
  const usableS = expiresIn >= SHORT_TOKEN_S ? expiresIn - TOKEN_EXPIRY_MARGIN_S : expiresIn / 2;
  return { token, usableUntil: now + Math.floor(usableS * 1000) };
}

/**
 * What an attempt's error quotes of a refusal: RFC 6749 §5.2's `error` and `error_description`
 * when the body is JSON, else its start on one line — never the client secret, in any of the
 * forms a token endpoint could echo (as given, form-encoded, inside the Basic header's base64).
 */
function quotedRefusal(body: string, secrets: readonly string[]): string {
  let text: string;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const error = typeof parsed['error'] === 'string' ? parsed['error'] : null;
    const description = typeof parsed['error_description'] === 'string' ? parsed['error_description'] : null;
    text = error === null ? body : JSON.stringify(description === null ? { error } : { error, error_description: description });
  } catch {
    text = body;
  }
  text = text.replace(/\s+/g, ' ').trim();
  for (const secret of secrets.filter((s) => s.length > 0)) {
    for (const form of [secret, formEncode(secret), encodeURIComponent(secret)]) text = text.split(form).join('…');
  }
  text = text.replace(/Basic [A-Za-z0-9+/=]{8,}/g, 'Basic …');
  return text.length > QUOTED_BODY_CHARS ? `${text.slice(0, QUOTED_BODY_CHARS)}…` : text;
}

/** Whether the two URLs name one host: the endpoint's client certificate is presented to its token endpoint on that host too. */
export function sameHost(a: string, b: string): boolean {
  try {
    return new URL(a).hostname === new URL(b).hostname;
  } catch {
    return false;
  }
}
