import { Webhook } from 'standardwebhooks';

/** The parts of a received request that a signature covers. */
export interface SignedRequest {
  headers: Record<string, string>;
  body: string;
}

/**
 * Verifies a received webhook with the official standardwebhooks library (as a receiver
 * would: secret passed as is, timestamps more than 5 minutes off refused) and returns the
 * parsed JSON body. Throws the library's WebhookVerificationError when it does not verify.
 */
export function verifyWebhook(secret: string, request: SignedRequest): unknown {
  return new Webhook(secret).verify(request.body, request.headers);
}
