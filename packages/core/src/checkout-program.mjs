// Whether a program is a file of this checkout: what keepResolutions (kept-resolutions.mjs) asks
// before it keeps anything, and what the preload (keep-resolutions.mjs) asks before it loads the
// keeping at all. Every Node process under `./dev` loads this, so it imports nothing and takes its
// built-ins by process.getBuiltinModule (cache-file.mjs says why).
const { realpathSync, statSync } = process.getBuiltinModule('node:fs');
const { fileURLToPath, pathToFileURL } = process.getBuiltinModule('node:url');

/** This checkout: the folder above packages/core/src (a real path: Node's loader resolves links). */
export const CHECKOUT = new URL('../../../', import.meta.url);

/** Whether a file URL is one of `checkout`'s files: not `./dev`'s own Node and pnpm in `.tools/`, which the lockfile does not name. */
export function checkoutFiles(checkout = CHECKOUT) {
  const root = checkout.href;
  const tools = new URL('.tools/', checkout).href;
  return (url) => url.startsWith(root) && !url.startsWith(tools);
}

/** `program`'s (a path or file URL) real path as a file URL when it is a file of `checkout`; else undefined (no file: `node -e code arg`). */
export function checkoutProgramUrl(program, checkout = CHECKOUT) {
  try {
    const path = realpathSync(program.startsWith('file:') ? fileURLToPath(program) : program);
    const url = pathToFileURL(path).href;
    return statSync(path).isFile() && checkoutFiles(checkout)(url) ? url : undefined;
  } catch {
    return undefined;
  }
}
