// A process started the way a service main starts: tracing first, everything else imported
// after it. It does one piece of work in a span — a log line, and a Redis increment when
// REDIS_URL is set — then stops tracing (which exports) and exits. tracing.test.ts runs it.
import { startTracing } from '../tracing.ts';

const tracing = await startTracing({ serviceName: 'traced-process' });
const { createLogger } = await import('../logger.ts');
const { withSpan } = await import('../spans.ts');
const { RedisKv } = await import('@wirehook/kv');

const logger = createLogger({ name: 'traced-process' });
const redisUrl = process.env['REDIS_URL'];
const kv = redisUrl ? new RedisKv({ url: redisUrl, commandTimeoutMs: 2_000 }) : undefined;
await withSpan('traced-process', 'work', {}, async () => {
  logger.info({ exporting: tracing.exporting }, 'working');
  await kv?.incr('traced-process', 60_000);
});
await kv?.close();
await tracing.stop();
