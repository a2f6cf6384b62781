// A process holding a RedisKv to REDIS_URL, whose Redis the test kills: once a call finds it
// down, the process closes the RedisKv and should then end by itself, nothing left holding it.
// If it is still alive 1.5 s later (an unref'd timer, so it fires only while something else
// holds the process), it says so. redis-kv.test.ts runs it.
import { KvUnavailableError, RedisKv } from '../src/redis-kv.ts';

const say = (line: string): void => void process.stdout.write(`${line}\n`);
const kv = new RedisKv({ url: process.env['REDIS_URL'] ?? '' });
await kv.set('close-while-down', 'v', 60_000);
say('connected');
// Down once a call is refused (the test kills Redis after reading "connected").
for (;;) {
  const down = await kv.get('close-while-down').then(
    () => false,
    (err: unknown) => err instanceof KvUnavailableError,
  );
  if (down) break;
  await new Promise((resolve) => setTimeout(resolve, 20));
}
await kv.close();
say('closed');
setTimeout(() => say('still held open 1.5 s after its close'), 1_500).unref();
