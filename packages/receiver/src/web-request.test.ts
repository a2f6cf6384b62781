import { describe, expect, it } from 'vitest';
import { newSecret, signedHeaders, wirehookBody } from './testing/sender.ts';
import { WebhookVerificationError } from './verification-error.ts';
import { verifyRequest } from './web-request.ts';

const secret = newSecret();
const body = wirehookBody({ ticket: 't_5', text: 'naïve — ünïcode' });
const webhookRequest = (payload: string, headers: Record<string, string>) =>
  new Request('https://receiver.example/webhooks', { method: 'POST', headers, body: payload });

describe('verifyRequest', () => {
  it('verifies a Web Request', async () => {
    const webhook = await verifyRequest(webhookRequest(body, signedHeaders(secret, body, { id: 'msg_w1' })), secret);
    expect(webhook).toMatchObject({ id: 'msg_w1', event: JSON.parse(body), body });
  });

  it('refuses a tampered body', async () => {
    const request = webhookRequest(body.replace('t_5', 't_6'), signedHeaders(secret, body));
    await expect(verifyRequest(request, secret)).rejects.toMatchObject({ reason: 'no_matching_signature' });
  });

  it('leaves the original readable when given request.clone()', async () => {
    const request = webhookRequest(body, signedHeaders(secret, body));
    await verifyRequest(request.clone(), secret);
    expect(await request.json()).toEqual(JSON.parse(body));
  });

  it('refuses with body_not_raw when the body was already read', async () => {
    const request = webhookRequest(body, signedHeaders(secret, body));
    await request.json();
    const err = await verifyRequest(request, secret).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebhookVerificationError);
    expect(err).toMatchObject({ reason: 'body_not_raw', message: expect.stringContaining('request.clone()') });
  });
});
