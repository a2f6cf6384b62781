// A process that starts an EgressThread (with the stand-in worker), sends to each path of its
// arguments in turn, waiting for each answer but the last's, and then does nothing else: it must
// stay alive for the last answer, and end once it has it or when no send waits (the thread
// holds the process only while it starts and while a send waits). Prints each answer's status.
import { EgressThread } from '../egress-thread.ts';

const egress = new EgressThread(
  { allowHosts: 'localhost', resolve: '', timeoutMs: 15_000, connectionsPerOrigin: 16 },
  { workerUrl: new URL('./egress-thread-stand-in.ts', import.meta.url) },
);
await egress.start();
process.stdout.write('started\n');
const paths = process.argv.slice(2);
const send = (path: string) =>
  egress.send({ url: `https://localhost${path}`, headers: {}, body: '{}' }).then((result) => {
    process.stdout.write(`${path} answered ${result.status}\n`);
  });
for (const path of paths.slice(0, -1)) await send(path);
if (paths.length > 0) void send(paths.at(-1)!);
