// A process holding a RedisKv to a Sentinel group none of whose sentinels answers (REDIS_URL):
// once calls have been refused (its lookups of the primary failed), it closes the RedisKv and
// should then end by itself. If it is still alive 1.5 s later (an unref'd timer, so it fires only while
// something else holds the process), it says so. redis-sentinel.test.ts runs it.
import { RedisKv } from '../src/redis-kv.ts';

const say = (line: string): void => void process.stdout.write(`${line}\n`);
const kv = new RedisKv({ url: process.env['REDIS_URL'] ?? '' });
// Two calls refused (each waits its 500 ms for a connection): by then the client has looked the
// primary up and failed several times, each lookup's own client disconnected.
for (let refused = 0; refused < 2; ) {
  await kv.get('k').then(
    () => {
      throw new Error('a Sentinel group with no sentinel answered a call');
    },
    () => refused++,
  );
}
say('lookups failed');
await kv.close();
say('closed');
setTimeout(() => say('still held open 1.5 s after its close'), 1_500).unref();
