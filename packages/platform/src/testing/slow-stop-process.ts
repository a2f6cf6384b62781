// A service process whose one component takes STOP_MS to stop, run by runService with
// STOP_DEADLINE_MS (when set) as its stopDeadlineMs. lifecycle.test.ts stops it with SIGTERM.
import { runService } from '../service.ts';

const env = (name: string): string | undefined => process.env[name];
const stopMs = Number(env('STOP_MS'));
const deadline = env('STOP_DEADLINE_MS');
await runService(
  'slow-stop',
  {
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    METRICS_PORT: Number(env('METRICS_PORT')),
    METRICS_HOST: '127.0.0.1',
    ...(deadline === undefined ? {} : { stopDeadlineMs: Number(deadline) }),
  },
  () => [{ name: 'slow', start: async () => {}, stop: () => new Promise<void>((resolve) => setTimeout(resolve, stopMs)) }],
);
