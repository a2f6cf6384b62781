import { StatementSync } from 'node:sqlite';

/**
 * Runs `run` (the sends of one group commit, say), counting the statements SQLite runs
 * meanwhile in this process by the kind `classify` gives their SQL (undefined: not counted).
 */
export async function countStatements<K extends string, T>(
  classify: (sql: string) => K | undefined,
  run: () => Promise<T>,
): Promise<{ result: T; counts: Record<K, number> }> {
  const counts = {} as Record<K, number>;
  const proto = StatementSync.prototype as unknown as Record<'get' | 'run' | 'all', (this: StatementSync, ...args: unknown[]) => unknown>;
  const original = { get: proto.get, run: proto.run, all: proto.all };
  for (const name of ['get', 'run', 'all'] as const) {
    proto[name] = function (this: StatementSync, ...args: unknown[]) {
      const kind = classify(this.sourceSQL);
      if (kind !== undefined) counts[kind] = (counts[kind] ?? 0) + 1;
      return original[name].apply(this, args);
    };
  }
  try {
    return { result: await run(), counts };
  } finally {
    Object.assign(proto, original);
  }
}
