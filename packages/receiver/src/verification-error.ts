/**
 * Why a webhook was refused, as a machine-readable code, with the HTTP status an adapter
 * answers with. Configuration faults of the receiver itself (a malformed secret, a body
 * that was parsed before verification) are 500: they are this server's bug, not the
 * sender's, and they show as server errors in Wirehook's delivery log and in monitoring.
 */
export const REASON_STATUS = {
  missing_header: 400,
  invalid_header: 400,
  timestamp_too_old: 400,
  timestamp_in_future: 400,
  no_matching_signature: 400,
  body_reencoded: 400,
  invalid_body: 400,
  body_incomplete: 400,
  body_too_large: 413,
  bad_secret_format: 500,
  body_not_raw: 500,
} as const;

/** The reason code of a {@link WebhookVerificationError}. */
export type VerificationFailure = keyof typeof REASON_STATUS;

/** The JSON body adapters answer a refused webhook with: `{ error, message }`. */
export interface VerificationErrorBody {
  error: VerificationFailure;
  message: string;
}

/**
 * A webhook that was not verified: `reason` says what failed, the message says why and
 * what to do about it. Messages never contain the secret.
 */
export class WebhookVerificationError extends Error {
  readonly reason: VerificationFailure;

  constructor(reason: VerificationFailure, message: string) {
    super(message);
    this.reason = reason;
    this.name = new.target.name;
  }

  /** The HTTP status an adapter responds with. */
  get status(): number {
    return REASON_STATUS[this.reason];
  }

  /** The response body: `{ error: reason, message }`. */
  toBody(): VerificationErrorBody {
    return { error: this.reason, message: this.message };
  }
}
