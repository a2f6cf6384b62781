import type { Writable } from 'node:stream';

/**
 * Calls `then` once, when what `stream` holds has been written, or `fallbackMs` later, whichever
 * comes first. An empty write's callback runs after every write before it, so it says when they
 * are done; 'drain' would not: it comes only after a write that found the buffer over its
 * high-water mark (16 KB), so a few lines held by a slow pipe reader would always wait the fallback.
 */
export function afterWritten(stream: Writable, fallbackMs: number, then: () => void): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    then();
  };
  if (stream.writableLength === 0) return once();
  stream.write('', once);
  setTimeout(once, fallbackMs).unref();
}
