import { WebhookVerificationError } from '../verification-error.ts';

/** The WebhookVerificationError `fn` throws; fails the test when it throws nothing or something else. */
export function refusal(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err;
    throw err;
  }
  throw new Error('expected a WebhookVerificationError, nothing was thrown');
}
