import { notRaw } from './raw-body.ts';
import type { WebhookSecret } from './secret.ts';
import { type VerifiedWebhook, type VerifyOptions, verify } from './verify.ts';

/**
 * Verifies a Web `Request` (Next.js route handlers, Hono, Cloudflare Workers, Deno, Bun;
 * see {@link verify}). It reads the body, so use the result's `event` and `body` rather
 * than reading the request again, or pass `request.clone()` to keep the original unread.
 * Rejects with a {@link WebhookVerificationError}.
 */
export async function verifyRequest<Data = unknown>(request: Request, secret: WebhookSecret, options: VerifyOptions = {}): Promise<VerifiedWebhook<Data>> {
  if (request.bodyUsed) {
    throw notRaw('the request body was already read (request.json() or request.text() before verifying?): verify first, or verify request.clone()');
  }
  return verify<Data>(await request.arrayBuffer(), request.headers, secret, options);
}
