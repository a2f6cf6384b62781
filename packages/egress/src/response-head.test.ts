import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { discardRest, headText, readHead } from './response-head.ts';

describe('readHead', () => {
  it('stops at the limit across chunks and leaves the rest unread', async () => {
    const body = Readable.from([Buffer.from('abc'), Buffer.from('defg'), Buffer.from('hij')], { objectMode: false });
    const head = await readHead(body, 5);
    expect(head).toEqual({ bytes: Buffer.from('abcde'), ended: false });
    expect(body.isPaused()).toBe(true);
  });

  it('returns a short body whole and marks it ended', async () => {
    const head = await readHead(Readable.from([Buffer.from('ok')]), 1024);
    expect(head).toEqual({ bytes: Buffer.from('ok'), ended: true });
  });

  it('keeps what arrived when the stream fails, without throwing', async () => {
    const body = new PassThrough();
    const pending = readHead(body, 100);
    body.write('par');
    setImmediate(() => body.destroy(new Error('reset')));
    expect(await pending).toEqual({ bytes: Buffer.from('par'), ended: true });
  });

  it('reads nothing for a limit of 0', async () => {
    expect((await readHead(Readable.from([Buffer.from('x')]), 0)).bytes.length).toBe(0);
  });
});

describe('headText', () => {
  it('drops a character cut by the limit but keeps a complete body as is', () => {
    const bytes = Buffer.from('aé');
    expect(headText({ bytes: bytes.subarray(0, 2), ended: false })).toBe('a');
    expect(headText({ bytes, ended: false })).toBe('aé');
    expect(headText({ bytes: bytes.subarray(0, 2), ended: true })).toBe('a\uFFFD');
  });
});

describe('discardRest', () => {
  it('drains a small rest to its end', async () => {
    const body = Readable.from([Buffer.alloc(10), Buffer.alloc(10)]);
    await readHead(body, 5);
    await discardRest(body, 1000);
    expect(body.readableEnded).toBe(true);
    expect(body.destroyed).toBe(true); // autoDestroy after a clean end
  });

  it('destroys the stream once more than the cap passes', async () => {
    const body = new PassThrough();
    const done = discardRest(body, 10);
    body.write(Buffer.alloc(8));
    body.write(Buffer.alloc(8));
    await done;
    expect(body.destroyed).toBe(true);
    expect(body.readableEnded).toBe(false);
  });
});
