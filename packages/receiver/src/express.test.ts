import { createServer } from 'node:http';
import express, { type ErrorRequestHandler } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { expressWebhook } from './express.ts';
import { listen, newSecret, signedHeaders, wirehookBody } from './testing/sender.ts';
import { WebhookVerificationError } from './verification-error.ts';

const secret = newSecret();
const body = wirehookBody({ invoice: 'in_1', amount: 990 });
let stop: (() => Promise<void>) | undefined;

afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** Serves `app` on 127.0.0.1 and posts `payload` to `/webhooks`, signed for `body` unless headers are given. */
async function post(app: express.Express, payload: string, headers = signedHeaders(secret, body)): Promise<{ status: number; json: any }> {
  const server = await listen(createServer(app));
  stop = server.close;
  const res = await fetch(`${server.url}/webhooks`, { method: 'POST', headers, body: payload });
  return { status: res.status, json: await res.json() };
}

function echo(req: express.Request, res: express.Response): void {
  res.json({ webhook: req.webhook, rawBody: Buffer.isBuffer(req.body) ? req.body.toString('utf8') : null });
}

describe('expressWebhook', () => {
  it('verifies behind express.raw() and sets req.webhook', async () => {
    const app = express();
    app.post('/webhooks', express.raw({ type: 'application/json' }), expressWebhook(secret), echo);
    const { status, json } = await post(app, body);
    expect(status).toBe(200);
    expect(json.webhook.event).toEqual(JSON.parse(body));
    expect(json.webhook.body).toBe(body);
    expect(json.rawBody).toBe(body);
  });

  it('a payload near the 1 MB limit of Wirehook passes behind express.raw with the limit the README gives (its default 100 kB would refuse it)', async () => {
    const big = wirehookBody({ blob: 'x'.repeat(900_000) });
    const app = express();
    app.post('/webhooks', express.raw({ type: 'application/json', limit: '2mb' }), expressWebhook(secret), echo);
    const { status, json } = await post(app, big, signedHeaders(secret, big));
    expect(status).toBe(200);
    expect(json.webhook.body.length).toBe(big.length);
  });

  it('reads the raw body itself when no parser ran, leaving the bytes in req.body', async () => {
    const app = express();
    app.post('/webhooks', expressWebhook(secret), echo);
    const { status, json } = await post(app, body);
    expect(status).toBe(200);
    expect(json.webhook.event.data).toEqual({ invoice: 'in_1', amount: 990 });
    expect(json.rawBody).toBe(body);
  });

  it('works before an app-wide express.json(), which then leaves the body alone', async () => {
    const app = express();
    app.post('/webhooks', expressWebhook(secret), express.json(), echo);
    const { status, json } = await post(app, body);
    expect(status).toBe(200);
    expect(json.rawBody).toBe(body);
  });

  it('answers 500 body_not_raw, naming the fix, when express.json() parsed the body first', async () => {
    const app = express();
    app.use(express.json());
    app.post('/webhooks', expressWebhook(secret), echo);
    const { status, json } = await post(app, body);
    expect(status).toBe(500);
    expect(json.error).toBe('body_not_raw');
    expect(json.message).toContain('already parsed into an object (by express.json()?)');
    expect(json.message).toContain('express.raw({ type: "application/json", limit: "2mb" })');
  });

  it('answers 400 no_matching_signature for a tampered body', async () => {
    const app = express();
    app.post('/webhooks', expressWebhook(secret), echo);
    const { status, json } = await post(app, body.replace('990', '1'));
    expect(status).toBe(400);
    expect(json).toEqual({ error: 'no_matching_signature', message: expect.stringContaining('none of the 1 signature') });
  });

  it('answers 400 missing_header for an unsigned request', async () => {
    const app = express();
    app.post('/webhooks', expressWebhook(secret), echo);
    const { status, json } = await post(app, body, { 'content-type': 'application/json' } as Record<string, string>);
    expect(status).toBe(400);
    expect(json.error).toBe('missing_header');
  });

  it('answers 413 body_too_large past maxBodyBytes', async () => {
    const app = express();
    app.post('/webhooks', expressWebhook(secret, { maxBodyBytes: 100 }), echo);
    const large = wirehookBody({ filler: 'x'.repeat(200) });
    const { status, json } = await post(app, large, signedHeaders(secret, large));
    expect(status).toBe(413);
    expect(json.error).toBe('body_too_large');
  });

  it('passes the error to next(err) with forwardErrors', async () => {
    const app = express();
    app.post('/webhooks', expressWebhook(secret, { forwardErrors: true }), echo);
    const handler: ErrorRequestHandler = (err, _req, res, _next) => {
      res.status(418).json({ forwarded: err instanceof WebhookVerificationError ? err.reason : 'other' });
    };
    app.use(handler);
    const { status, json } = await post(app, body, signedHeaders(newSecret(), body));
    expect(status).toBe(418);
    expect(json).toEqual({ forwarded: 'no_matching_signature' });
  });

  it('throws at setup on a malformed secret', () => {
    expect(() => expressWebhook('sk_live_abc')).toThrow(WebhookVerificationError);
  });
});
