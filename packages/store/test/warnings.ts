/**
 * Runs `run` with the process warnings emitted meanwhile collected in `warnings` (emitWarning's
 * come on a later tick: `run` waits for them itself), then stops listening.
 */
export async function withWarnings<T>(run: (warnings: string[]) => Promise<T>): Promise<T> {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  process.on('warning', onWarning);
  try {
    return await run(warnings);
  } finally {
    process.off('warning', onWarning);
  }
}
