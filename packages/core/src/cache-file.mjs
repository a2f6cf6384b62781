// What the caches kept beside Node's compile cache share (thread-entry.mjs's stripped sources,
// kept-resolutions.mjs's answers): plain JavaScript, so a thread loads it before it can strip.
// Node's built-ins through process.getBuiltinModule, not ESM imports, which build each one's
// namespace (≈ 10 ms of CPU for these at a process's start, measured: docs/benchmarks.md).
const { createHash } = process.getBuiltinModule('node:crypto');
const { mkdirSync, renameSync, unlinkSync, writeFileSync } = process.getBuiltinModule('node:fs');
const { dirname } = process.getBuiltinModule('node:path');
const { threadId } = process.getBuiltinModule('node:worker_threads');

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
