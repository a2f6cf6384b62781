import type { RequestHandler } from 'express';
import type { NodeRequestOptions } from './node-http.ts';
import { notRaw } from './raw-body.ts';
import { DEFAULT_MAX_BODY_BYTES, readBody } from './read-body.ts';
import { secretKeys, type WebhookSecret } from './secret.ts';
import { WebhookVerificationError } from './verification-error.ts';
import { type VerifiedWebhook, verify } from './verify.ts';

declare global {
  namespace Express {
    interface Request {
      /** The verified webhook, set by `expressWebhook()`. */
      webhook?: VerifiedWebhook;
    }
  }
}

/** Options of {@link expressWebhook}. */
export interface ExpressWebhookOptions extends NodeRequestOptions {
  /** Pass a refused webhook's error to `next(err)` instead of answering `{ error, message }`. */
  forwardErrors?: boolean | undefined;
}

/**
 * Express middleware verifying Wirehook webhooks: on success it sets `req.webhook` and
 * calls `next()`; otherwise it answers the error's status (400, 413, or 500 for a
 * misconfigured receiver) with `{ error: reason, message }`, or calls `next(err)` with
 * `forwardErrors`. It takes the raw body from `express.raw()` (a Buffer in `req.body`)
 * or reads it itself, then leaves the Buffer in `req.body`; a body another parser, such
 * as `express.json()`, already consumed is refused with a clear `body_not_raw`. Throws a
 * `bad_secret_format` error at once when the secret is malformed.
 */
export function expressWebhook(secret: WebhookSecret, options: ExpressWebhookOptions = {}): RequestHandler {
  secretKeys(secret); // a malformed secret fails at startup, not on the first delivery
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return (req, res, next) => {
    rawBody(req, maxBytes)
      .then((body) => verify(body, req.headers, secret, options))
      .then(
        (webhook) => {
          req.webhook = webhook;
          next();
        },
        (err: unknown) => {
          if (!(err instanceof WebhookVerificationError) || options.forwardErrors) return next(err);
          res.status(err.status).json(err.toBody());
        },
      );
  };
}

async function rawBody(req: Parameters<RequestHandler>[0], maxBytes: number): Promise<string | Uint8Array> {
  const parsed: unknown = req.body;
  if (typeof parsed === 'string' || parsed instanceof Uint8Array) return parsed;
  if (parsed !== undefined && req.readableEnded) {
    throw notRaw('req.body was already parsed into an object (by express.json()?) before verification');
  }
  const body = await readBody(req, maxBytes);
  req.body = body; // where express.raw() would have put it, for handlers that want the bytes
  return body;
}
