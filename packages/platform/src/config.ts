import { z } from 'zod';

/**
 * Parses a service's environment with its zod schema, once, in main. On a bad value it
 * prints which variable is wrong and why, and exits non-zero.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv, service: string): Readonly<z.output<S>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    process.stderr.write(`${service}: invalid configuration\n${z.prettifyError(result.error)}\n`);
    process.exit(1);
  }
  return Object.freeze(result.data);
}

/** A TCP port from the environment, with a default. */
export const portVar = (fallback: number) => z.coerce.number().int().min(0).max(65_535).default(fallback);
