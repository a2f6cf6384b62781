/** The longest transformation code, in UTF-8 bytes (issue #45). */
export const MAX_TRANSFORMATION_CODE_BYTES = 32_768;

/**
 * Null when `code` may be stored as an endpoint's `transformation.code`, else why not, in
 * words for the API's 422 (`transformation.code must be at most 32,768 bytes (UTF-8); it is
 * 32,769`). Only the type and size: whether the code parses and defines `handler` is known by
 * running it (TransformRunner.run).
 */
export function checkTransformationCode(code: unknown): string | null {
  if (typeof code !== 'string') return 'transformation.code must be a string of JavaScript';
  const problem = codeSizeProblem(code);
  return problem === null ? null : `transformation.code ${problem}`;
}

/** Null when `code` is within MAX_TRANSFORMATION_CODE_BYTES, else `must be at most 32,768 bytes (UTF-8); it is N`. */
export function codeSizeProblem(code: string): string | null {
  // A UTF-16 unit is at most 3 bytes of UTF-8: short code needs no count.
  if (code.length * 3 <= MAX_TRANSFORMATION_CODE_BYTES) return null;
  const bytes = Buffer.byteLength(code, 'utf8');
  if (bytes <= MAX_TRANSFORMATION_CODE_BYTES) return null;
  return `must be at most ${MAX_TRANSFORMATION_CODE_BYTES.toLocaleString('en-US')} bytes (UTF-8); it is ${bytes.toLocaleString('en-US')}`;
}
