import type { IncomingMessage } from 'node:http';
import { notRaw } from './raw-body.ts';
import { WebhookVerificationError } from './verification-error.ts';

/**
 * The default body size limit, 1 MiB: Wirehook's payloads are at most 1,000,000 bytes of
 * JSON, and the `{ type, timestamp, data }` envelope adds under 200.
 */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads the whole body of `req`. Throws (rejects with) a `body_too_large`
 * {@link WebhookVerificationError} past `maxBytes`, a `body_not_raw` one when something
 * else already read the body, and a `body_incomplete` one when the client went away mid-body.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  if (req.readableEnded) return Promise.reject(notRaw('the request body was already read (by a body parser?) before verification'));
  if (Number(req.headers['content-length']) > maxBytes) return Promise.reject(tooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (done: () => void) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      done();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      // Drain the rest unbuffered so the connection stays usable for the 413 response.
      req.resume();
      settle(() => reject(tooLarge(maxBytes)));
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks, size)));
    // A client that goes away mid-body is a refused request, not a crash of the receiver.
    const onError = (err: Error) => settle(() => reject(incomplete(err.message)));
    const onClose = () => settle(() => reject(incomplete('the connection closed')));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

function incomplete(why: string): WebhookVerificationError {
  return new WebhookVerificationError('body_incomplete', `the request body ended before its end (${why}): nothing was verified`);
}

function tooLarge(maxBytes: number): WebhookVerificationError {
  return new WebhookVerificationError(
    'body_too_large',
    `the body is over the limit of ${maxBytes} bytes (maxBodyBytes); Wirehook's bodies are at most about 1,000,200 bytes`,
  );
}
