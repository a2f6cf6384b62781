// Which unit test files vitest.config.ts runs in a process of their own, though the units share one.

/**
 * A file that mocks a module (`vi.mock`, `vi.doMock`, `vi.unmock`, `vi.doUnmock`; `vitest.` or
 * `vi.`, a type argument or not): the mock applies only where the module is loaded fresh. Or one
 * that resets the module registry (`vi.resetModules`): every file after it would load every
 * module again, and each module-level singleton twice. (`vi` imported under another name is not
 * seen: the house imports it as `vi`.)
 */
const NEEDS_A_PROCESS = /\bvi(?:test)?\s*\.\s*(?:mock|doMock|unmock|doUnmock|resetModules)\s*[<(]/;

/** Whether a unit test file's source needs a process of its own (NEEDS_A_PROCESS). */
export function needsOwnProcess(source: string): boolean {
  return NEEDS_A_PROCESS.test(source);
}
