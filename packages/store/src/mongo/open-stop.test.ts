// A stop asked while the MongoDB store opens, without a server: a port nothing listens on, so the
// driver would wait its whole server selection (10 minutes here, past the test's own limit) for one to answer.
import { freePort } from '@wirehook/testkit';
import { MongoClient } from 'mongodb';
import { expect, it, vi } from 'vitest';
import { openMongoStore } from './open-mongo-store.ts';

it('a stop asked while it waits for a server ends the wait with the stop’s reason, not the driver’s timeout', async () => {
  const url = `mongodb://127.0.0.1:${await freePort()}/wirehook?serverSelectionTimeoutMS=600000&directConnection=true`;
  const stop = new AbortController();
  const opening = openMongoStore({ url, signal: stop.signal });
  // Asked once the open is under way (its first attempt refused, the driver waiting for the next).
  setImmediate(() => stop.abort(new Error('SIGTERM while starting')));
  const closed = vi.spyOn(MongoClient.prototype, 'close');
  await expect(opening).rejects.toThrow('SIGTERM while starting');
  // And its client closed: no monitor left dialling the dead port for the rest of its 10 minutes.
  expect(closed).toHaveBeenCalled();
  closed.mockRestore();
});
