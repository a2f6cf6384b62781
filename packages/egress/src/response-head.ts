import type { Readable } from 'node:stream';

/** What {@link readHead} got. */
export interface ResponseHead {
  /** At most `limit` bytes from the start of the body. */
  bytes: Buffer;
  /** True when the body ended (or failed) before `limit` bytes arrived. */
  ended: boolean;
}

/**
 * Reads the first `limit` bytes of a response body, then leaves the stream paused (call
 * {@link discardRest} next). A stream error just ends the head early: whatever arrived
 * is kept. Never rejects.
 */
export function readHead(body: Readable, limit: number): Promise<ResponseHead> {
  // Kept for the stream's whole life: an 'error' with no listener would be thrown.
  body.on('error', ignore);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (ended: boolean) => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onEnd);
      body.off('close', onEnd);
      body.pause();
      resolve({ bytes: Buffer.concat(chunks).subarray(0, limit), ended });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) done(false);
    };
    const onEnd = () => done(true);
    if (limit <= 0 || body.readableEnded || body.destroyed) {
      done(body.readableEnded || body.destroyed);
      return;
    }
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onEnd);
    body.once('close', onEnd);
  });
}

/**
 * Reads and drops the rest of a body so its keep-alive connection can be reused, but
 * destroys the stream (and so the connection) once more than `capBytes` pass: a large
 * body is not worth the wait. Resolves when the stream is finished either way.
 */
export function discardRest(body: Readable, capBytes: number): Promise<void> {
  return new Promise((resolve) => {
    if (body.readableEnded || body.destroyed) {
      resolve();
      return;
    }
    let seen = 0;
    body.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > capBytes) body.destroy();
    });
    body.once('end', () => resolve());
    body.once('close', () => resolve());
    body.once('error', () => resolve());
    body.resume();
  });
}

/**
 * The head as text: UTF-8, with a multi-byte character cut by the byte limit dropped
 * rather than shown as U+FFFD.
 */
export function headText(head: ResponseHead): string {
  // A whole body decodes with the shared decoder; a cut one needs its own (stream mode keeps state).
  return head.ended ? WHOLE.decode(head.bytes) : new TextDecoder('utf-8').decode(head.bytes, { stream: true });
}

const WHOLE = new TextDecoder('utf-8');

function ignore(): void {}
