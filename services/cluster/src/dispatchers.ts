// DISPATCHERS, the dispatcher replicas the launcher starts: a rule of its own, in a module that
// loads zod alone, so the bench can read it by the launcher's rule without loading the launcher's
// config (the platform and kv packages, ioredis) in every run.
import { z } from 'zod';

/** Dispatcher replicas: 1 to 16, 2 unless set. */
export const dispatchersSchema = z.coerce.number().int().min(1).max(16).default(2);

/** DISPATCHERS from `env` by the launcher's rule; or the one line the launcher prints for it. */
export function readDispatchers(env: NodeJS.ProcessEnv): { dispatchers: number; problem?: never } | { dispatchers?: never; problem: string } {
  const parsed = dispatchersSchema.safeParse(env['DISPATCHERS']);
  return parsed.success ? { dispatchers: parsed.data } : { problem: `DISPATCHERS ${parsed.error.issues[0]?.message}` };
}
