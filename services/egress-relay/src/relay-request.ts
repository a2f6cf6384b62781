import {
  compatSignatureSchema,
  endpointAuthInput,
  endpointUrl,
  isHeaderValue,
  MAX_ENDPOINT_HEADER_BYTES,
  MAX_ENDPOINT_HEADERS,
  MAX_ORDERING_KEY_HEADER_CHARS,
  reservedHeaderProblem,
  USER_AGENT,
  type OAuthClientCredentials,
} from '@wirehook/core';

/** The headers of every delivery (standardWebhookHeaders), in the order the errors list them. */
const STANDARD_HEADERS = ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'user-agent'] as const;
type StandardHeader = (typeof STANDARD_HEADERS)[number];

/** What each standard header's value must look like, and the error when it does not. */
const VALUE_RULES: Record<StandardHeader, { test: (value: string) => boolean; error: string }> = {
  'content-type': { test: (v) => v === 'application/json', error: 'must be application/json' },
  'webhook-id': { test: (v) => /^msg_[0-9A-Za-z]{1,64}$/.test(v), error: 'is not a message id' },
  'webhook-timestamp': { test: (v) => /^\d{1,12}$/.test(v), error: 'is not whole seconds' },
  'webhook-signature': { test: (v) => /^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$/.test(v), error: 'is not a list of v1 signatures' },
  'user-agent': { test: (v) => v === USER_AGENT, error: `must be ${USER_AGENT}` },
};

/**
 * An ordered delivery's headers, sent only with each other: printable ASCII as long as the
 * dispatcher's encoding of the longest key can make it (orderingKeyHeader), and a whole number.
 */
const ORDERING_KEY_VALUE = new RegExp(`^[\\x20-\\x7e]{1,${MAX_ORDERING_KEY_HEADER_CHARS}}$`);
const ORDERING_HEADERS: Record<string, (value: string) => boolean> = {
  'webhook-ordering-key': (v) => ORDERING_KEY_VALUE.test(v),
  'webhook-sequence': (v) => /^[1-9]\d{0,15}$/.test(v),
};

const ALLOWED = `${STANDARD_HEADERS.join(', ')}, webhook-ordering-key and webhook-sequence, an endpoint's custom headers and one compat signature header`;
const compatHeaderName = compatSignatureSchema.shape.header;

/**
 * Why the relay refuses `request`, or null when it is a request the dispatcher sends
 * (services/dispatcher/src/webhook-request.ts): an endpoint URL by the endpoint rules (https,
 * port 443 or 8443, no credentials; DELIVERY_ALLOW_HOSTS lifts only the address rules), the
 * five Standard Webhooks headers with their fixed or well-formed values, an ordered delivery's
 * webhook-ordering-key and webhook-sequence, and the endpoint's custom headers and compat
 * signature header by the rules the API checks them with. The INTERNAL_AUTH_TOKEN
 * lets a caller in; this keeps the relay from being a general HTTP client from the fixed IPs
 * for whoever holds it. The message is `relay: refused …` (a relay error, ours).
 */
export function relayRequestViolation(request: { url: string; headers: Readonly<Record<string, string>> }): string | null {
  const reason = urlReason(request.url) ?? headersReason(request.headers);
  return reason === null ? null : `relay: refused a request the dispatcher does not send: ${reason}`;
}

/**
 * Why the relay refuses to fetch a token with `credentials`, or null: the API's rules for an
 * endpoint's `auth` (endpointAuthInput: the token URL by the endpoint URL rules, printable
 * client id and secret, scope tokens, a known method). `relay: refused …`, as for a webhook.
 */
export function relayTokenViolation(credentials: OAuthClientCredentials): string | null {
  const checked = endpointAuthInput.safeParse({
    type: 'oauth2_client_credentials',
    token_url: credentials.tokenUrl,
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
    scope: credentials.scope,
    audience: credentials.audience,
    token_auth_method: credentials.tokenAuthMethod,
  });
  if (checked.success) return null;
  const issue = checked.error.issues[0]!;
  return `relay: refused a token request the dispatcher does not send: ${issue.path.join('.')} ${issue.message}`;
}

function urlReason(url: string): string | null {
  const checked = endpointUrl.safeParse(url);
  return checked.success ? null : `url ${checked.error.issues.map((issue) => issue.message).join('; ')}`;
}

function headersReason(headers: Readonly<Record<string, string>>): string | null {
  const values = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (values.has(lower)) return `header ${lower} is given twice`;
    values.set(lower, value);
  }
  for (const name of STANDARD_HEADERS) {
    const value = values.get(name);
    if (value === undefined) return `header ${name} is missing`;
    if (!VALUE_RULES[name].test(value)) return `header ${name} ${VALUE_RULES[name].error}`;
  }
  for (const [name, valid] of Object.entries(ORDERING_HEADERS)) {
    const value = values.get(name);
    if (value !== undefined && !valid(value)) return `header ${name} is not what Wirehook sends`;
  }
  if (values.has('webhook-ordering-key') !== values.has('webhook-sequence')) return 'headers webhook-ordering-key and webhook-sequence go together';
  // The rest: the endpoint's custom headers and one compat signature header, by the rules the API
  // checked them with (endpointHeadersInput, compatSignatureSchema): at most that many, that
  // size, never a name of Wirehook's, the body's or the connection's, printable ASCII values.
  const extra = [...values.keys()].filter((name) => !(STANDARD_HEADERS as readonly string[]).includes(name) && !(name in ORDERING_HEADERS));
  if (extra.length > MAX_ENDPOINT_HEADERS + 1)
    return `${extra.length} headers besides Wirehook's: at most ${MAX_ENDPOINT_HEADERS} custom and one compat signature (${ALLOWED})`;
  let bytes = 0;
  for (const name of extra) {
    const value = values.get(name)!;
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
    if (reservedHeaderProblem(name) !== null && !compatHeaderName.safeParse(name).success) return `header ${name} is not one Wirehook sends (${ALLOWED})`;
    if (value === '' || !isHeaderValue(value)) return `header ${name} is not printable ASCII`;
  }
  if (bytes > MAX_ENDPOINT_HEADER_BYTES + MAX_COMPAT_HEADER_BYTES) return `headers besides Wirehook's total ${bytes} bytes, more than an endpoint's can`;
  return null;
}

/** A compat signature header at most: its name, a prefix and one signature per valid secret. */
const MAX_COMPAT_HEADER_BYTES = 2_100;
