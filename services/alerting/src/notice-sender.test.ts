// What the sender puts on the wire for each kind of target, against real receivers: a signed
// webhook (verified with the official library and the target's own secret), a Slack-style
// chat message with the receiver's words escaped, a plain-text e-mail through a real SMTP
// server (smtp-server on loopback) — and each failure as data, never a throw (except a secret
// that does not open, which the outbox records as a failed try).
import type { AddressInfo } from 'node:net';
import { newSigningSecret, SecretBox, USER_AGENT, type AlertTargetId, type OrgId } from '@wirehook/core';
import { AddressPolicy, HttpEgress } from '@wirehook/egress';
import type { AlertTarget, NoticeDelivery } from '@wirehook/store';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reachingReceivers, startReceiver, testLookup, type NamedReceiver } from '../../../test/support/receivers.ts';
import { noticeContent, usageContent, type NoticeContent } from './notice-content.ts';
import { NoticeSender } from './notice-sender.ts';
import { SmtpMailer } from './smtp-mailer.ts';

const T0 = Date.UTC(2026, 4, 12, 9, 0, 0);
const box = SecretBox.fromBase64(SecretBox.generateKey());
let named: NamedReceiver;
let egress: HttpEgress;
let smtp: SMTPServer;
let smtpPort: number;
const mails: { from: string; to: string[]; raw: string }[] = [];
/** Addresses the SMTP server refuses (RCPT TO answered 550). */
const refusedRecipients = new Set<string>();

beforeAll(async () => {
  named = await startReceiver();
  const reach = await reachingReceivers();
  egress = new HttpEgress({ policy: new AddressPolicy({ allowHosts: reach.allowHosts }), lookup: testLookup, ca: reach.ca, timeoutMs: 5_000 });
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onRcptTo(address, _session, callback) {
      callback(refusedRecipients.has(address.address) ? Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }) : undefined);
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('end', () => {
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await egress?.close();
  await named?.receiver.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});
afterEach(() => {
  named.receiver.respondWith({});
  named.receiver.clear();
  mails.length = 0;
});

const failing: NoticeContent = noticeContent(
  'alert.delivery_failure',
  [
    {
      env: 'live',
      endpointId: 'ep_01KAAAAAAAAAAAAAAAAAAAAAAA' as never,
      url: 'https://hooks.customer.test/in',
      consumerExternalId: '<!channel> customer-1',
      failingSince: T0,
      lastError: 'http_status: 503',
      lastStatus: 503,
    },
  ],
  T0,
);
const notice = (content: NoticeContent = failing, id = 'ntc_01KAAAAAAAAAAAAAAAAAAAAAAA'): NoticeDelivery => ({
  id,
  orgId: 'org_01KAAAAAAAAAAAAAAAAAAAAAAA' as OrgId,
  targetId: 'atg_01KAAAAAAAAAAAAAAAAAAAAAAA' as AlertTargetId,
  type: content.type,
  body: JSON.stringify(content),
  createdAt: T0,
});
const target = (over: Partial<AlertTarget>): AlertTarget => ({
  id: 'atg_01KBBBBBBBBBBBBBBBBBBBBBBB' as AlertTargetId,
  env: 'live',
  type: 'webhook',
  url: null,
  address: null,
  sealedSecret: null,
  createdAt: T0,
  ...over,
});
/** A webhook target with its own sealed secret; the secret in clear for the receiver's check. */
function webhookTarget(): { target: AlertTarget; secret: string } {
  const secret = newSigningSecret();
  const t = target({ type: 'webhook', url: named.url('/alerts') });
  return { target: { ...t, sealedSecret: box.seal(secret, t.id) }, secret };
}
const mailer = (from = 'alerts@wirehook.test') => ({ mailer: new SmtpMailer({ url: `smtp://127.0.0.1:${smtpPort}`, timeoutMs: 10_000 }), from });

describe('webhook targets', () => {
  it('get the notice as a Standard Webhooks POST signed with the target’s secret, webhook-id the notice’s id', async () => {
    const sender = new NoticeSender({ egress, secretBox: box, mail: null });
    const { target: t, secret } = webhookTarget();
    const result = await sender.send(t, notice());
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
    const [request] = named.receiver.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/alerts', body: notice().body });
    expect(request!.headers['webhook-id']).toBe('ntc_01KAAAAAAAAAAAAAAAAAAAAAAA');
    expect(named.receiver.verify(secret, request)).toEqual(failing);
    // Another secret does not verify it: it is this target's signature.
    expect(() => named.receiver.verify(newSigningSecret(), request)).toThrow();
  });

  it('a receiver’s refusal is a failed result with its status, not a throw', async () => {
    named.receiver.respondWith({ status: 500 });
    const sender = new NoticeSender({ egress, secretBox: box, mail: null });
    expect(await sender.send(webhookTarget().target, notice())).toMatchObject({ ok: false, status: 500, error: 'http_status: 500' });
  });

  it('a secret sealed for another target does not open: the send throws and nothing is sent', async () => {
    const sender = new NoticeSender({ egress, secretBox: box, mail: null });
    const { target: t } = webhookTarget();
    const moved = { ...t, sealedSecret: box.seal(newSigningSecret(), 'atg_01KCCCCCCCCCCCCCCCCCCCCCCC') };
    await expect(sender.send(moved, notice())).rejects.toThrow();
    expect(named.receiver.requests).toHaveLength(0);
  });
});

describe('chat targets', () => {
  it('Slack-compatible: { text, blocks } as JSON, unsigned, the receiver’s words escaped', async () => {
    const sender = new NoticeSender({ egress, secretBox: box, mail: null });
    expect(await sender.send(target({ type: 'chat', url: named.url('/chat') }), notice())).toMatchObject({ ok: true, status: 200 });
    const [request] = named.receiver.requests;
    expect(request!.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': USER_AGENT });
    expect(request!.headers['webhook-signature']).toBeUndefined();
    const body = JSON.parse(request!.body);
    expect(Object.keys(body).sort()).toEqual(['blocks', 'text']);
    expect(body.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: body.text } }]);
    expect(body.text).toContain('customer &lt;!channel&gt; customer-1');
    expect(body.text).not.toContain('<!channel>');
  });

  it('Teams (a webhook.office.com URL): { text } alone, in Markdown', async () => {
    // No certificate of ours can name office.com: the egress is stood in for to read what it is handed.
    const handed: { url: string; body: string }[] = [];
    const recording = { send: async (r: { url: string; body: string }) => (handed.push(r), { ok: true, status: 200, error: null, durationMs: 1 }) };
    const sender = new NoticeSender({ egress: recording as unknown as HttpEgress, secretBox: box, mail: null });
    await sender.send(target({ type: 'chat', url: 'https://acme.webhook.office.com/webhookb2/x' }), notice());
    const body = JSON.parse(handed[0]!.body);
    expect(Object.keys(body)).toEqual(['text']);
    expect(body.text).toContain('customer &lt;\\!channel&gt; customer\\-1');
  });
});

describe('e-mail', () => {
  it('without SMTP_URL: canEmail is false and an e-mail target’s try fails, saying so', async () => {
    const sender = new NoticeSender({ egress, secretBox: box, mail: null });
    expect(sender.canEmail).toBe(false);
    expect(await sender.send(target({ type: 'email', address: 'ops@acme.test' }), notice())).toEqual({
      ok: false,
      status: null,
      error: 'smtp: no SMTP_URL configured',
      durationMs: 0,
    });
    expect(await sender.sendOwnerEmail('owner@acme.test', notice())).toMatchObject({ ok: false, error: 'smtp: no SMTP_URL configured' });
  });

  it('an e-mail target gets the notice in words: subject by type, the summary and the environments', async () => {
    const sender = new NoticeSender({ egress, secretBox: box, mail: mailer() });
    expect(sender.canEmail).toBe(true);
    expect(await sender.send(target({ type: 'email', address: 'ops@acme.test' }), notice())).toMatchObject({ ok: true, status: null, error: null });
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ from: 'alerts@wirehook.test', to: ['ops@acme.test'] });
    expect(mails[0]!.raw).toMatch(/^Subject: \[Wirehook\] Webhook deliveries are failing\r?$/m);
    expect(mails[0]!.raw).toContain('Deliveries to an endpoint are failing:');
    expect(mails[0]!.raw).toContain('Environment: live');
  });

  it('each try of one notice to one address has one Message-ID (a late copy and its retry are one message); another address or notice, another', async () => {
    const sender = new NoticeSender({ egress, secretBox: box, mail: mailer() });
    await sender.send(target({ type: 'email', address: 'ops@acme.test' }), notice());
    await sender.send(target({ type: 'email', address: 'ops@acme.test' }), notice()); // the retry
    await sender.send(target({ type: 'email', address: 'oncall@acme.test' }), notice());
    await sender.send(target({ type: 'email', address: 'ops@acme.test' }), { ...notice(), id: 'ntc_other' });
    const ids = mails.map((m) => /^Message-ID: (<[^>]+>)\r?$/im.exec(m.raw)?.[1]);
    expect(ids[0]).toMatch(/^<.+@wirehook\.test>$/);
    expect(ids[1]).toBe(ids[0]);
    expect(new Set(ids).size).toBe(3);
  });

  it('the owner’s usage e-mail names the percentage in its subject', async () => {
    const sender = new NoticeSender({ egress, secretBox: box, mail: mailer() });
    const usage = usageContent(200_000, 250_000, 80, T0);
    expect(await sender.sendOwnerEmail('owner@acme.test', notice(usage))).toMatchObject({ ok: true });
    expect(mails[0]).toMatchObject({ to: ['owner@acme.test'] });
    expect(mails[0]!.raw).toMatch(/^Subject: \[Wirehook\] Webhook usage at 80 % of the plan\r?$/m);
  });

  it('a refusal by the SMTP server is a failed try naming it, not a throw', async () => {
    refusedRecipients.add('gone@acme.test');
    const sender = new NoticeSender({ egress, secretBox: box, mail: mailer() });
    const result = await sender.send(target({ type: 'email', address: 'gone@acme.test' }), notice());
    expect(result).toMatchObject({ ok: false, status: null, error: expect.stringMatching(/^smtp: .*mailbox unavailable/) });
    expect(mails).toHaveLength(0);
  });
});
