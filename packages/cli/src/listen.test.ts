// The attempt's error when the local server gave no answer: what `wirehook listen` prints and
// records. Real fetch calls, none of which reaches a server.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { WebSocketServer } from 'ws';
import { firstBytes, listen, localError } from './listen.ts';

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

/**
 * A Wirehook's GET /v1/listen as a test scripts it: each upgrade in turn is served (a `ready`
 * frame; `thenClose` closes it as going away) or refused with a status and error body.
 */
async function scriptedWirehook(
  script: ({ serve: true; thenClose?: boolean; closeWith?: { code: number; reason: string }; request?: object } | { refuse: number; error: string })[],
) {
  const wss = new WebSocketServer({ noServer: true });
  let upgrades = 0;
  const answers: { id: string; status?: number; error?: string }[] = [];
  const server = createServer();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const step = script[Math.min(upgrades++, script.length - 1)]!;
    if ('refuse' in step) {
      const body = JSON.stringify({ error: step.error, message: 'this Wirehook is stopping; connect again in a moment' });
      socket.end(`HTTP/1.1 ${step.refuse} No\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const ready = {
        type: 'ready',
        endpoint: { id: 'ep_1', url: 'http://localhost:9/hook', event_types: null },
        consumer: { id: 'con_1', external_id: 'x' },
        secret: 'whsec_x',
      };
      ws.on('message', (data) => answers.push(JSON.parse(data.toString())));
      ws.send(JSON.stringify(ready));
      if (step.request) ws.send(JSON.stringify(step.request));
      if (step.thenClose) setTimeout(() => ws.close(1001, 'Wirehook is stopping'), 50);
      const closeWith = step.closeWith;
      if (closeWith) setTimeout(() => ws.close(closeWith.code, closeWith.reason), 50);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    upgrades: () => upgrades,
    answers,
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Polls `done` every 20 ms until it holds; fails after 10 s. */
async function until(done: () => boolean): Promise<void> {
  for (const started = Date.now(); !done(); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() - started > 10_000) expect.fail('not within 10 s');
  }
}

/** `listen`'s options against `apiUrl`, stopped by `signal`, with `more`. */
const options = (apiUrl: string, signal: AbortSignal, more: object = {}) => ({
  apiUrl,
  apiKey: 'sk_test_x',
  forwardTo: 'http://localhost:9/hook',
  events: undefined,
  consumer: undefined,
  printJson: false,
  signal,
  ...more,
});

describe('wirehook listen: a Wirehook that stops', () => {
  it('after being served, a 503 (a Wirehook stopping) or a 502 on reconnecting is waited out: it connects again, and stops on its signal with 0', async () => {
    const wirehook = await scriptedWirehook([
      { serve: true, thenClose: true },
      { refuse: 503, error: 'unavailable' },
      { refuse: 502, error: 'bad_gateway' },
      { serve: true },
    ]);
    const stop = new AbortController();
    try {
      const exited = listen(options(wirehook.url, stop.signal));
      await until(() => wirehook.upgrades() === 4);
      stop.abort();
      expect(await exited).toBe(0);
    } finally {
      await wirehook.close();
    }
  });

  it('after being served, a refusal (401: the key revoked) or a fault (500) ends it with 1', async () => {
    for (const [status, error] of [
      [401, 'unauthorized'],
      [500, 'internal'],
    ] as const) {
      const wirehook = await scriptedWirehook([
        { serve: true, thenClose: true },
        { refuse: status, error },
      ]);
      try {
        expect(await listen(options(wirehook.url, new AbortController().signal)), String(status)).toBe(1);
        expect(wirehook.upgrades()).toBe(2);
      } finally {
        await wirehook.close();
      }
    }
  });
});

describe('wirehook listen: a connection that ends without a word', () => {
  it('no ping from Wirehook within the watch (a path that dropped, no close): the connection is cut and made again', async () => {
    // The scripted Wirehook never pings; Wirehook's own pings every 20 s.
    const wirehook = await scriptedWirehook([{ serve: true }]);
    const stop = new AbortController();
    const warn = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const exited = listen(options(wirehook.url, stop.signal, { pingWatchMs: 200 }));
      await until(() => wirehook.upgrades() === 2);
      stop.abort();
      expect(await exited).toBe(0);
      expect(warn.mock.calls.map((call) => String(call[0]))).toContainEqual(expect.stringMatching(/^connection to Wirehook lost \(1006\); reconnecting/));
    } finally {
      warn.mockRestore();
      await wirehook.close();
    }
  });

  it('closed for a revoked or expired key (1008): it says why and exits 1, without connecting again', async () => {
    const wirehook = await scriptedWirehook([{ serve: true, closeWith: { code: 1008, reason: 'this API key was revoked or has expired' } }, { serve: true }]);
    const warn = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await listen(options(wirehook.url, new AbortController().signal))).toBe(1);
      expect(wirehook.upgrades()).toBe(1);
      expect(warn.mock.calls.map((call) => String(call[0]))).toEqual(['wirehook listen: this API key was revoked or has expired']);
    } finally {
      warn.mockRestore();
      await wirehook.close();
    }
  });

  it('gives the local server the attempt’s own time limit (the request’s timeout_ms, less the way back), not 15 s', async () => {
    const local = createServer(() => {}); // never answers
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    const forwardTo = `http://127.0.0.1:${(local.address() as AddressInfo).port}/hook`;
    const body = JSON.stringify({ type: 'invoice.paid', timestamp: '2026-01-01T00:00:00.000Z', data: {} });
    const request = { type: 'request', id: 'r1', headers: { 'webhook-id': 'msg_1' }, body, timeout_ms: 1_000 };
    const wirehook = await scriptedWirehook([{ serve: true, request }]);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const stop = new AbortController();
    try {
      const exited = listen({ ...options(wirehook.url, stop.signal), forwardTo });
      await until(() => wirehook.answers.length === 1);
      // 250 ms of the 1 s left for the answer's way back.
      expect(wirehook.answers[0]).toMatchObject({ id: 'r1', error: `timeout: ${forwardTo} gave no response within 0.75 s` });
      stop.abort();
      expect(await exited).toBe(0);
    } finally {
      log.mockRestore();
      await wirehook.close();
      local.closeAllConnections();
      await new Promise((resolve) => local.close(resolve));
    }
  });
});

describe('wirehook listen: stopped while the local server has not answered', () => {
  it('cuts the local request short and exits 0 at once, saying the attempt was not answered — not a 200 printed 15 s later', async () => {
    let requested = false;
    let cut = false;
    const local = createServer((req) => {
      requested = true;
      req.socket.on('close', () => (cut = true)); // never answered
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    const forwardTo = `http://127.0.0.1:${(local.address() as AddressInfo).port}/hook`;
    const body = JSON.stringify({ type: 'invoice.paid', timestamp: '2026-01-01T00:00:00.000Z', data: {} });
    const wirehook = await scriptedWirehook([{ serve: true, request: { type: 'request', id: 'r1', headers: { 'webhook-id': 'msg_1' }, body } }]);
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
    const stop = new AbortController();
    try {
      const exited = listen({
        apiUrl: wirehook.url,
        apiKey: 'sk_test_x',
        forwardTo,
        events: undefined,
        consumer: undefined,
        printJson: false,
        signal: stop.signal,
      });
      await until(() => requested);
      stop.abort();
      expect(await exited).toBe(0);
      await until(() => cut);
      await until(() => printed.some((line) => line.startsWith('→ stopped')));
      expect(printed.filter((line) => line.startsWith('→ '))).toEqual([
        '→ stopped invoice.paid msg_1 (the listener stopped before your server answered (its endpoint is removed and this delivery fails with it))',
      ]);
    } finally {
      log.mockRestore();
      await wirehook.close();
      local.closeAllConnections();
      await new Promise((resolve) => local.close(resolve));
    }
  });
});

describe('firstBytes', () => {
  it('reads the first 1 KiB of a body that never ends, then lets the rest go (the stream cancelled)', async () => {
    let cancelled = false;
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        pulled++;
        controller.enqueue(new Uint8Array(300).fill(0x61));
      },
      cancel: () => {
        cancelled = true;
      },
    });
    const text = await firstBytes(new Response(endless), 1024);
    expect(text).toBe('a'.repeat(1024));
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThanOrEqual(6); // 4 chunks read, one or two asked ahead: not the body
  });

  it('a character the 1 KiB cut splits is dropped, not kept as U+FFFD; one whole at the end of a short body is kept', async () => {
    const cut = 'a'.repeat(1023) + 'é' + 'tail'; // é is 2 bytes: bytes 1023–1024, cut after its first
    expect(await firstBytes(new Response(cut), 1024)).toBe('a'.repeat(1023));
    expect(await firstBytes(new Response('café'), 1024)).toBe('café');
    expect(await firstBytes(new Response(Buffer.from([0x61, 0xff])), 1024)).toBe('a\uFFFD'); // not UTF-8 at all: replaced
  });

  it('a short or empty body is read whole', async () => {
    expect(await firstBytes(new Response('thanks'), 1024)).toBe('thanks');
    expect(await firstBytes(new Response(null), 1024)).toBe('');
  });
});
