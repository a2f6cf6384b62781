import type { FastifyInstance } from 'fastify';
import type { NodeRequestOptions } from './node-http.ts';
import { DEFAULT_MAX_BODY_BYTES } from './read-body.ts';
import { secretKeys, type WebhookSecret } from './secret.ts';
import { WebhookVerificationError } from './verification-error.ts';
import { verify, type VerifiedWebhook } from './verify.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified webhook, set on the routes of a scope given to `verifyWebhooks()`. */
    webhook?: VerifiedWebhook;
  }
}

/** Options of {@link verifyWebhooks}. */
export interface FastifyWebhookOptions extends NodeRequestOptions {
  /** Throw a refused webhook's error to Fastify's error handler instead of answering `{ error, message }`. */
  forwardErrors?: boolean | undefined;
}

/**
 * Verifies every request to the routes of `scope`, a Fastify plugin context: call it
 * inside `app.register(async (scope) => { … })` and declare the webhook routes there, so
 * other routes keep Fastify's JSON parsing. In that scope, `application/json` bodies are
 * kept as raw bytes for verification; once verified, `request.body` is the parsed event
 * (schemas validate it as usual) and `request.webhook` the whole verified webhook. A
 * refused one is answered with its status and `{ error: reason, message }`, or thrown
 * with `forwardErrors`. Throws a `bad_secret_format` error at once when the secret is
 * malformed.
 */
export function verifyWebhooks(scope: FastifyInstance, secret: WebhookSecret, options: FastifyWebhookOptions = {}): void {
  secretKeys(secret); // a malformed secret fails at startup, not on the first delivery
  scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES }, (_request, body, done) =>
    done(null, body),
  );
  scope.addHook('preValidation', async (request, reply) => {
    try {
      // Our parser gives every body as a Buffer; undefined means the request had none.
      const body = (request.body as Buffer | undefined) ?? Buffer.alloc(0);
      request.webhook = verify(body, request.headers, secret, options);
    } catch (err) {
      if (!(err instanceof WebhookVerificationError) || options.forwardErrors) throw err;
      return reply.code(err.status).send(err.toBody());
    }
    request.body = request.webhook.event;
  });
}
