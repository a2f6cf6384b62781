import { createRequire } from 'node:module';

/**
 * A CommonJS package required by the first call, not imported with the module that needs it:
 * for what costs a start more than its first use does (a package whose import takes tens of ms of
 * CPU, which most processes never use). Synchronous, as `require` is. `from` is the caller's
 * `import.meta.url`: the package resolves from the caller's own dependencies, as an import would.
 * A require that throws is not kept: the next call tries again.
 */
export function requiredOnFirstUse<T>(from: string, specifier: string): () => T {
  const requireFrom = createRequire(from);
  let loaded: T | undefined;
  return () => {
    loaded ??= requireFrom(specifier) as T;
    return loaded;
  };
}
