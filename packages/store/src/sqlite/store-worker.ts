// A thread that owns one SQLite connection of a threaded store (see threaded-store.ts): the
// writer's, or the read-only reader's. It runs every store call it is sent and answers with
// the result or the error.
import { parentPort, workerData } from 'node:worker_threads';
import { turnOutbox } from '@wirehook/core/without-schemas';
import { openSqliteReader, openSqliteStore } from './open-sqlite-store.ts';
import { withoutEchoedPayload } from './echoed-payload.ts';
import { jobsIn, SentEndpoints } from './job-endpoints.ts';
import { serializeError } from './remote-error.ts';
import type { StoreCall, StoreReply, StoreThreadRole } from './store-thread.ts';

const port = parentPort!;
const { path, role } = workerData as { path: string; role: StoreThreadRole };
const store = role === 'reader' ? openSqliteReader(path) : openSqliteStore({ path });
const repos = store as unknown as Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>>;

async function run(call: Exclude<StoreCall, { close: true }>): Promise<unknown> {
  const repo = repos[call.repo];
  const method = repo?.[call.method];
  if (typeof method !== 'function') throw new TypeError(`store has no ${call.repo}.${call.method}`);
  return method.apply(repo, call.args);
}

// Answers settled during one turn of the event loop go back in one message.
const reply = turnOutbox<StoreReply>((answers) => port.postMessage(answers));
// Left out here as each answer is queued (the order in which they cross), put back by the caller's side.
const sentEndpoints = new SentEndpoints();

port.on('message', (calls: StoreCall[]) => {
  for (const call of calls) {
    if ('close' in call) {
      store.close().then(
        () => reply({ id: call.id, ok: true, value: undefined }),
        (err: unknown) => reply({ id: call.id, ok: false, error: serializeError(err) }),
      );
      continue;
    }
    run(call).then(
      (value) => {
        sentEndpoints.leaveOut(jobsIn(call, value));
        reply({ id: call.id, ok: true, value: withoutEchoedPayload(call, value) });
      },
      (err: unknown) => reply({ id: call.id, ok: false, error: serializeError(err) }),
    );
  }
});
