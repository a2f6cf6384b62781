import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhooks, type FastifyWebhookOptions } from './fastify.ts';
import { newSecret, signedHeaders, wirehookBody } from './testing/sender.ts';
import { WebhookVerificationError } from './verification-error.ts';

const secret = newSecret();
const body = wirehookBody({ shipment: 'sh_9', items: [1, 2, 3] });
let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A Fastify app with `/webhooks` in a verified scope and `/api` outside it, listening on 127.0.0.1. */
async function start(options: FastifyWebhookOptions = {}, configure?: (app: FastifyInstance) => void): Promise<string> {
  app = Fastify();
  configure?.(app);
  app.register(async (scope) => {
    verifyWebhooks(scope, secret, options);
    scope.post('/webhooks', async (request) => ({ body: request.body, id: request.webhook?.id, raw: request.webhook?.body }));
  });
  app.post('/api', async (request) => ({ body: request.body, webhook: request.webhook ?? null }));
  return app.listen({ port: 0, host: '127.0.0.1' });
}

async function post(url: string, payload: string, headers: Record<string, string>): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { method: 'POST', headers, body: payload });
  return { status: res.status, json: await res.json() };
}

describe('verifyWebhooks', () => {
  it('verifies the raw body; request.body is then the parsed event and request.webhook the rest', async () => {
    const url = await start();
    const headers = signedHeaders(secret, body, { id: 'msg_f1' });
    const { status, json } = await post(`${url}/webhooks`, body, headers);
    expect(status).toBe(200);
    expect(json).toEqual({ body: JSON.parse(body), id: 'msg_f1', raw: body });
  });

  it('leaves routes outside the scope with Fastify’s own JSON parsing and no verification', async () => {
    const url = await start();
    const { status, json } = await post(`${url}/api`, '{"a": 1}', { 'content-type': 'application/json' });
    expect(status).toBe(200);
    expect(json).toEqual({ body: { a: 1 }, webhook: null });
  });

  it('answers 400 { error, message } for a wrong signature', async () => {
    const url = await start();
    const { status, json } = await post(`${url}/webhooks`, body, signedHeaders(newSecret(), body));
    expect(status).toBe(400);
    expect(json.error).toBe('no_matching_signature');
    expect(json.message).toContain('none of the 1 signature');
  });

  it('answers 400, not a receiver fault, for a signed request that lost its body', async () => {
    const url = await start();
    const { 'content-type': _none, ...headers } = signedHeaders(secret, body);
    const res = await fetch(`${url}/webhooks`, { method: 'POST', headers });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'no_matching_signature' });
  });

  it('answers 400 timestamp_too_old for a delivery signed 301 s ago', async () => {
    const url = await start();
    const old = signedHeaders(secret, body, { timestampSeconds: Math.floor(Date.now() / 1000) - 301 });
    const { status, json } = await post(`${url}/webhooks`, body, old);
    expect(status).toBe(400);
    expect(json.error).toBe('timestamp_too_old');
  });

  it('throws to the error handler with forwardErrors', async () => {
    const url = await start({ forwardErrors: true }, (fastify) => {
      fastify.setErrorHandler((err, _request, reply) => {
        reply.code(418).send({ forwarded: err instanceof WebhookVerificationError ? err.reason : 'other' });
      });
    });
    const { status, json } = await post(`${url}/webhooks`, body, { 'content-type': 'application/json' });
    expect(status).toBe(418);
    expect(json).toEqual({ forwarded: 'missing_header' });
  });

  it('refuses bodies over maxBodyBytes with 413', async () => {
    const url = await start({ maxBodyBytes: 100 });
    const large = wirehookBody({ filler: 'x'.repeat(200) });
    const { status } = await post(`${url}/webhooks`, large, signedHeaders(secret, large));
    expect(status).toBe(413);
  });

  it('throws at setup on a malformed secret', () => {
    expect(() => verifyWebhooks(Fastify(), 'v1,abc')).toThrow(/is a signature/);
  });
});
