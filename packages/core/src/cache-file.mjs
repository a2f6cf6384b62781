// What the caches kept beside Node's compile cache share (thread-entry.mjs's stripped sources,
// kept-resolutions.mjs's answers): plain JavaScript, so a thread loads it before it can strip.
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { threadId } from 'node:worker_threads';

export function sha256(text) {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Writes `text` to `file` whole: under a name of this thread's, then renamed into place, so a
 * reader sees all of it or none. A write that fails keeps nothing (its partial file removed: a
 * full disk); the caller's next start only does the work again.
 */
export function writeWhole(file, text) {
  const partial = `${file}.${process.pid}.${threadId}.partial`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(partial, text);
    renameSync(partial, file);
  } catch {
    try {
      unlinkSync(partial);
    } catch {}
  }
}
