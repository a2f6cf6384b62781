// Why a receiver refused a webhook, read from its answer: @wirehook/receiver's
// `{ error: <reason>, message }` bodies and the official Standard Webhooks libraries' error
// messages (the same wording in JavaScript, Python, Go, Ruby, Java, Rust, C#, PHP, Elixir, and
// in Svix's). Receivers send them with whatever status they like (400, 401, 403, or a 500 when
// the error goes unhandled), so the body is read whatever the status.

const SECRET =
  'No signature matched: the receiver verifies with another signing secret than this endpoint’s current one ' +
  '(each endpoint has its own whsec_ secret; after a rotation, the new one — both sign for 24 hours), or it verifies a body other than the exact bytes sent.';
const CLOCK =
  'The receiver refused the webhook-timestamp: its clock is more than 5 minutes off (the official libraries’ tolerance). Sync its clock with NTP. ' +
  'Wirehook signs every attempt, retries included, at the moment it sends it.';
const HEADERS =
  'The receiver did not get the webhook-id, webhook-timestamp and webhook-signature headers: ' +
  'a proxy or load balancer in front of it drops them, or the code reads other header names.';

/** Advice by @wirehook/receiver reason code (packages/receiver/src/verification-error.ts). */
const BY_REASON: Record<string, string> = {
  no_matching_signature: SECRET,
  body_reencoded:
    'The receiver’s body was re-encoded (parsed and serialized again, e.g. by a JSON body parser) before verification: ' +
    'verify the raw request body, byte for byte.',
  timestamp_too_old: CLOCK,
  timestamp_in_future: CLOCK,
  missing_header: HEADERS,
  invalid_header: HEADERS,
  invalid_body: 'The signature was valid but the receiver could not read the body as JSON: it must read the raw body as UTF-8 JSON.',
  body_incomplete: 'The receiver got an incomplete body (the connection ended early, or a proxy cut it).',
  body_too_large: 'The payload is over the receiver’s body size limit: raise it (Wirehook bodies are up to about 1 MB).',
  bad_secret_format:
    'The receiver’s configured secret is malformed: give it the endpoint’s whsec_ secret as is, prefix included (show it in the dashboard or rotate it).',
  body_not_raw: 'The receiver’s code parsed the body before verification: verification needs the raw request body (mount the verifier before any JSON parser).',
};

/** The official libraries' messages, matched in any case; the first that matches wins. */
const BY_MESSAGE: [RegExp, string][] = [
  [/no matching signature/i, SECRET],
  [/timestamp too (old|new)/i, CLOCK],
  [/missing required headers|invalid signature headers/i, HEADERS],
  [/invalid signature|signature (mismatch|verification failed)/i, SECRET],
];

/**
 * The advice for a refusal the receiver's answer `head` names, or null when it names none we
 * know. `head` is the receiver's text: it is only matched against known codes and messages,
 * never repeated by this function.
 */
export function receiverRefusal(head: string | null): string | null {
  if (head === null) return null;
  const reason = reasonCode(head);
  if (reason !== null && BY_REASON[reason] !== undefined) return BY_REASON[reason];
  return BY_MESSAGE.find(([pattern]) => pattern.test(head))?.[1] ?? null;
}

function reasonCode(head: string): string | null {
  try {
    const body = JSON.parse(head) as unknown;
    const error = (body as { error?: unknown } | null)?.error;
    return typeof error === 'string' ? error : null;
  } catch {
    // Not JSON (or cut at the response head's length): look for the code itself.
    return /"error"\s*:\s*"([a-z_]+)"/.exec(head)?.[1] ?? null;
  }
}
