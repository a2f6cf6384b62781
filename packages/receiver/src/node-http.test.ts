import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type NodeRequestOptions, verifyNodeRequest } from './node-http.ts';
import { listen, newSecret, signedHeaders, wirehookBody } from './testing/sender.ts';
import { WebhookVerificationError } from './verification-error.ts';

const secret = newSecret();
const body = wirehookBody({ user: 'u_1', emails: ['a@example.com'] });
let stop: (() => Promise<void>) | undefined;

afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** A node:http server answering the verified webhook, or the refusal's status and body. */
async function serve(options: NodeRequestOptions = {}, before?: (req: IncomingMessage) => Promise<void>): Promise<string> {
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    await before?.(req);
    try {
      const webhook = await verifyNodeRequest(req, secret, options);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(webhook));
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      res.writeHead(err.status, { 'content-type': 'application/json' }).end(JSON.stringify(err.toBody()));
    }
  });
  const running = await listen(server);
  stop = running.close;
  return running.url;
}

async function post(url: string, payload: string, headers: Record<string, string>): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { method: 'POST', headers, body: payload });
  return { status: res.status, json: await res.json() };
}

describe('verifyNodeRequest', () => {
  it('a client that goes away mid-body is a body_incomplete refusal, not an unhandled rejection', async () => {
    const { connect } = await import('node:net');
    let outcome: unknown;
    const server = createServer((req) => {
      verifyNodeRequest(req, secret).then(
        () => (outcome = 'verified'),
        (err: unknown) => (outcome = err),
      );
    });
    const running = await listen(server);
    stop = running.close;
    const { port } = new URL(running.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.on('connect', resolve));
    socket.write(`POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a"`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    for (let i = 0; i < 100 && outcome === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(outcome).toBeInstanceOf(WebhookVerificationError);
    expect((outcome as WebhookVerificationError).reason).toBe('body_incomplete');
    expect((outcome as WebhookVerificationError).status).toBe(400);
  });

  it('reads and verifies the body', async () => {
    const url = await serve();
    const { status, json } = await post(url, body, signedHeaders(secret, body, { id: 'msg_n1' }));
    expect(status).toBe(200);
    expect(json).toMatchObject({ id: 'msg_n1', event: JSON.parse(body), body });
  });

  it('refuses a tampered body', async () => {
    const url = await serve();
    const { status, json } = await post(url, body.replace('u_1', 'u_2'), signedHeaders(secret, body));
    expect(status).toBe(400);
    expect(json.error).toBe('no_matching_signature');
  });

  it('accepts a body of exactly 1 MiB by default and refuses one byte more', async () => {
    const url = await serve();
    const envelope = wirehookBody('');
    const sized = (bytes: number) => wirehookBody('x'.repeat(bytes - envelope.length));
    const atLimit = sized(1024 * 1024);
    expect((await post(url, atLimit, signedHeaders(secret, atLimit))).status).toBe(200);
    const over = sized(1024 * 1024 + 1);
    const { status, json } = await post(url, over, signedHeaders(secret, over));
    expect(status).toBe(413);
    expect(json.error).toBe('body_too_large');
  });

  it('stops a chunked body without content-length at maxBodyBytes and still answers 413', async () => {
    const url = await serve({ maxBodyBytes: 1000 });
    const { status, json } = await new Promise<{ status: number; json: any }>((resolve, reject) => {
      const req = httpRequest(`${url}/`, { method: 'POST', headers: signedHeaders(secret, body) }, (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (chunk: string) => (text += chunk))
          .on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
      });
      req.on('error', reject);
      for (let i = 0; i < 20; i++) req.write('x'.repeat(100)); // chunked: no content-length
      req.end();
    });
    expect(status).toBe(413);
    expect(json.error).toBe('body_too_large');
    expect(json.message).toContain('1000 bytes');
  });

  it('refuses a declared content-length over the limit before the body arrives', async () => {
    const url = await serve({ maxBodyBytes: 1000 });
    const status = await new Promise<number>((resolve, reject) => {
      const headers = { ...signedHeaders(secret, body), 'content-length': '5000' };
      const timer = setTimeout(() => reject(new Error('no answer before the body was complete')), 2000);
      const req = httpRequest(`${url}/`, { method: 'POST', headers }, (res) => {
        clearTimeout(timer);
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.write('x'.repeat(10)); // and never the rest: only the header can trigger the answer
    });
    expect(status).toBe(413);
  });

  it('refuses with body_not_raw when something already read the body', async () => {
    const url = await serve({}, async (req) => {
      for await (const _chunk of req); // a body parser that got there first
    });
    const { status, json } = await post(url, body, signedHeaders(secret, body));
    expect(status).toBe(500);
    expect(json.error).toBe('body_not_raw');
    expect(json.message).toContain('already read');
  });
});
