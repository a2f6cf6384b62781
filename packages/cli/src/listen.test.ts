// The attempt's error when the local server gave no answer: what `wirehook listen` prints and
// records. Real fetch calls, none of which reaches a server.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { localError } from './listen.ts';

async function fetchError(url: string): Promise<unknown> {
  return fetch(url, { method: 'POST', body: '{}' }).then(
    () => expect.fail('expected fetch to fail'),
    (err: unknown) => err,
  );
}

describe('wirehook listen: why the local server gave no answer', () => {
  it("a port fetch refuses (the Fetch standard's bad ports: 10080, 6000) is named, with what to do", async () => {
    for (const port of [10_080, 6_000]) {
      const url = `http://localhost:${port}/webhook`;
      expect(localError(await fetchError(url), url)).toBe(
        `connection: ${url} could not be reached (bad port: fetch refuses port ${port}, ` +
          "one of the Fetch standard's blocked ports such as 6000 and 10080; use another port)",
      );
    }
  });

  it('a refused connection keeps its code, and says nothing of bad ports', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const url = `http://127.0.0.1:${port}/webhook`;
    expect(localError(await fetchError(url), url)).toBe(`connection: ${url} could not be reached (ECONNREFUSED)`);
  });

  it('a timeout is a timeout', () => {
    const err = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(localError(err, 'http://localhost:3000/webhook')).toBe('timeout: http://localhost:3000/webhook gave no response within 15 s');
  });
});
