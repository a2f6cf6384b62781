// `wirehook trigger` where no API answers: one line naming the API's address and why, exit 1
// (fetch's own "fetch failed" said neither).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { trigger } from './trigger.ts';

afterEach(() => vi.restoreAllMocks());

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('wirehook trigger: no API answers', () => {
  it('a refused connection: the address, the code and the variable that names it; exit 1', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const apiUrl = `http://127.0.0.1:${await closedPort()}`;
    expect(await trigger({ apiUrl, apiKey: 'sk_test_x', eventType: 'invoice.paid', payload: undefined, consumer: undefined })).toBe(1);
    expect(errors.mock.calls).toEqual([[`wirehook trigger: the API at ${apiUrl} could not be reached (ECONNREFUSED); WIREHOOK_API_URL names it`]]);
  });

  it("a port fetch refuses (10080, one of the Fetch standard's bad ports), also when looking a con_ id up", async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const apiUrl = 'http://127.0.0.1:10080';
    expect(await trigger({ apiUrl, apiKey: 'sk_test_x', eventType: 'invoice.paid', payload: undefined, consumer: 'con_x' })).toBe(1);
    expect(errors.mock.calls).toEqual([
      [
        `wirehook trigger: the API at ${apiUrl} could not be reached (bad port: fetch refuses port 10080, ` +
          "one of the Fetch standard's blocked ports such as 6000 and 10080; use another port); WIREHOOK_API_URL names it",
      ],
    ]);
  });
});
