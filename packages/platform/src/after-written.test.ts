// afterWritten on an in-process Writable whose writes take a while: no pipe, no process exit.
import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { afterWritten } from './after-written.ts';

/** A stream whose every write takes `ms` (its high-water mark Node's 16 KB), saying in `said` when each ends. */
function slowStream(ms: number, said: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      setTimeout(() => {
        if (chunk.length > 0) said.push(`wrote ${chunk.length}`);
        done();
      }, ms);
    },
  });
}

it('calls back once what the stream holds is written — below the high-water mark too, where no drain comes', async () => {
  const said: string[] = [];
  const stream = slowStream(20, said);
  stream.on('drain', () => said.push('drain'));
  for (let i = 0; i < 3; i++) stream.write(Buffer.alloc(1_024));
  expect(stream.writableLength).toBe(3_072);
  // A fallback longer than the test may run: only the writes' end can call back in time.
  await new Promise<void>((resolve) => afterWritten(stream, 60_000, () => resolve(void said.push('called back'))));
  expect(said).toEqual(['wrote 1024', 'wrote 1024', 'wrote 1024', 'called back']);
});

it('calls back at once when nothing is held, and at the fallback when the writes end too late — once either way', async () => {
  const said: string[] = [];
  afterWritten(slowStream(20, said), 60_000, () => said.push('idle stream'));
  expect(said).toEqual(['idle stream']);

  // A write that ends only when told: after the fallback has called back, so both would call.
  const { promise: told, resolve: tell } = Promise.withResolvers<void>();
  const { promise: written, resolve: wrote } = Promise.withResolvers<void>();
  const late = new Writable({
    write(_chunk, _encoding, done) {
      void told.then(() => {
        done();
        wrote();
      });
    },
  });
  late.write('held');
  let calls = 0;
  await new Promise<void>((resolve) =>
    afterWritten(late, 50, () => {
      calls++;
      resolve();
    }),
  );
  tell();
  await written;
  // The empty write's callback, queued behind the held write, has run by the time the stream is empty again.
  await new Promise<void>((resolve) => late.write('', () => resolve()));
  expect(calls).toBe(1);
});
