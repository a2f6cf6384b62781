// An endpoint's OAuth 2.0 client credentials (`auth`, RFC 6749 §4.4): receivers that refuse a
// request without an access token, whatever its signature says. The rules live here, once, for the
// API, the dispatcher and the egress relay; the token request and the reading of its answer in
// oauth-token.ts (which the relay uses to build the request itself rather than send whatever it
// is handed).
import { z } from 'zod';
import { endpointUrl } from './endpoint-url.ts';
import { InvalidError } from './errors.ts';
import { type EndpointAuth, OAUTH_TOKEN_AUTH_METHODS } from './model.ts';
import type { SecretBox } from './secrets.ts';

/** RFC 6749 Appendix A: client_id and client_secret are VSCHAR (printable ASCII and space). */
const VSCHAR = /^[\x20-\x7e]+$/;
/** RFC 6749 §3.3: scope tokens (no `"` or `\`) separated by single spaces. */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/;

const MAX_CLIENT_ID_CHARS = 256;
const MAX_CLIENT_SECRET_CHARS = 1_024;
const MAX_SCOPE_CHARS = 1_024;
const MAX_AUDIENCE_CHARS = 1_024;

const printable = (what: string, max: number, pattern = VSCHAR, rule = 'printable ASCII') =>
  z
    .string({ error: `must be ${what}` })
    .min(1, { error: `must be ${what}, not empty` })
    .max(max, { error: `must be at most ${max} characters` })
    .regex(pattern, { error: `must be ${rule}` });

/** `auth` on create and PATCH. `client_secret` may be left out of a PATCH that keeps the token URL and client id. */
export const endpointAuthInput = z
  .strictObject({
    type: z.literal('oauth2_client_credentials', { error: 'must be oauth2_client_credentials' }),
    token_url: endpointUrl.describe('the token endpoint (https, port 443 or 8443): checked by the same address rules as endpoint URLs'),
    client_id: printable('the client id', MAX_CLIENT_ID_CHARS),
    client_secret: printable('the client secret', MAX_CLIENT_SECRET_CHARS)
      .optional()
      .describe('write-only: stored sealed, never returned; may be left out of a PATCH that keeps token_url and client_id'),
    scope: printable('space-separated scopes', MAX_SCOPE_CHARS, SCOPE, 'scope tokens (printable ASCII without " or \\) separated by single spaces')
      .nullable()
      .optional(),
    audience: printable('the audience', MAX_AUDIENCE_CHARS).nullable().optional(),
    token_auth_method: z
      .enum(OAUTH_TOKEN_AUTH_METHODS, { error: 'must be client_secret_basic or client_secret_post' })
      .describe('client_secret_basic: HTTP Basic (RFC 6749 §2.3.1); client_secret_post: in the form body'),
  })
  .describe('OAuth 2.0 client credentials: a Bearer token is fetched, cached and sent as Authorization with every webhook; null removes them');

export type EndpointAuthInput = z.output<typeof endpointAuthInput>;

/** `auth` in responses: everything but the client secret. */
export const endpointAuthShown = z
  .object({
    type: z.literal('oauth2_client_credentials'),
    token_url: z.string(),
    client_id: z.string(),
    scope: z.string().nullable(),
    audience: z.string().nullable(),
    token_auth_method: z.enum(OAUTH_TOKEN_AUTH_METHODS),
  })
  .nullable()
  .describe('the OAuth 2.0 client credentials a token is fetched with (the client secret is never returned); null: none');

export function endpointAuthJson(auth: EndpointAuth | null | undefined): z.output<typeof endpointAuthShown> {
  if (!auth) return null;
  const { type, tokenUrl, clientId, scope, audience, tokenAuthMethod } = auth;
  return { type, token_url: tokenUrl, client_id: clientId, scope, audience, token_auth_method: tokenAuthMethod };
}

/**
 * What an endpoint stores of `input`: the client secret sealed for `endpointId`. Without a
 * `client_secret`, the stored one is kept — only while token_url and client_id stay the same: a
 * secret must never be sent to a token endpoint other than the one it was given for.
 * @throws InvalidError when no secret is given and none may be kept.
 */
export function sealEndpointAuth(
  box: Pick<SecretBox, 'seal'>,
  endpointId: string,
  input: EndpointAuthInput,
  current: EndpointAuth | null | undefined,
): EndpointAuth {
  let sealedSecret: string;
  if (input.client_secret !== undefined) sealedSecret = box.seal(input.client_secret, endpointId);
  else if (current && sameGrant(current, input)) sealedSecret = current.sealedSecret;
  else {
    throw new InvalidError(
      current
        ? 'auth.client_secret: required when token_url, client_id, scope or audience changes (the stored secret never asks for another grant)'
        : 'auth.client_secret: required',
    );
  }
  return {
    type: 'oauth2_client_credentials',
    tokenUrl: input.token_url,
    clientId: input.client_id,
    sealedSecret,
    scope: input.scope ?? null,
    audience: input.audience ?? null,
    tokenAuthMethod: input.token_auth_method,
  };
}

/** Whether `input` asks the same token endpoint for the same grant as `current` (only the method may change without the secret). */
function sameGrant(current: EndpointAuth, input: EndpointAuthInput): boolean {
  return (
    current.tokenUrl === input.token_url &&
    current.clientId === input.client_id &&
    current.scope === (input.scope ?? null) &&
    current.audience === (input.audience ?? null)
  );
}
