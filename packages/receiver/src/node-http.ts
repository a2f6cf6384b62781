import type { IncomingMessage } from 'node:http';
import { DEFAULT_MAX_BODY_BYTES, readBody } from './read-body.ts';
import type { WebhookSecret } from './secret.ts';
import { type VerifiedWebhook, type VerifyOptions, verify } from './verify.ts';

/** Options of the adapters that read the body from a Node request themselves. */
export interface NodeRequestOptions extends VerifyOptions {
  /** The largest body accepted, in bytes; default 1 MiB ({@link DEFAULT_MAX_BODY_BYTES}). */
  maxBodyBytes?: number | undefined;
}

/**
 * Reads the body of a `node:http` request and verifies it (see {@link verify}). Call it
 * before anything else reads the body; the body is in the result (`body`, `event`).
 * Rejects with a {@link WebhookVerificationError}, or with a plain Error when the client
 * goes away mid-body.
 */
export async function verifyNodeRequest<Data = unknown>(
  req: IncomingMessage,
  secret: WebhookSecret,
  options: NodeRequestOptions = {},
): Promise<VerifiedWebhook<Data>> {
  const body = await readBody(req, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  return verify<Data>(body, req.headers, secret, options);
}
