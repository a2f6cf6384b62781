// E-mail notices over real SMTP (an smtp-server in the test): an e-mail target gets the
// failure notice in words; the owner gets the 80 % usage e-mail once.
import type { AddressInfo } from 'node:net';
import { eventually } from '@wirehook/testkit';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fillLiveUsage, startWirehook, type Harness } from '../support/harness.ts';
import { type NamedReceiver, reachingReceivers, startReceiver } from '../support/receivers.ts';

interface Mail {
  from: string;
  to: string[];
  raw: string;
}
const mails: Mail[] = [];
let smtp: SMTPServer;
let wh: Harness;
let failing: NamedReceiver;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
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
  const port = (smtp.server.address() as AddressInfo).port;
  wh = await startWirehook({ ...(await reachingReceivers()), smtpUrl: `smtp://127.0.0.1:${port}` });
  failing = await startReceiver();
  failing.receiver.respondWith({ status: 500 });
});
afterAll(async () => {
  await wh.close();
  await failing.receiver.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

it('an e-mail target gets the failure notice in words, from ALERT_EMAIL_FROM', async () => {
  const t = await wh.tenant();
  await t.api.put('/v1/alert-conditions', { delivery_failure: 'first' });
  expect((await t.api.post('/v1/alert-targets', { type: 'email', address: 'ops@acme.test' })).status).toBe(201);
  const consumerId = (await t.api.post('/v1/consumers', { external_id: 'mail-customer' })).body.id;
  await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: failing.url('/mail'), retry: { count: 0, interval: '1m' } });
  await t.api.post('/v1/messages', { consumer: 'mail-customer', event_type: 'a.b', payload: {} });
  await eventually(async () => {
    await wh.embedded.alertingWorker.tick();
    expect(mails.filter((m) => m.to.includes('ops@acme.test'))).toHaveLength(1);
  }, 15_000);
  const mail = mails.find((m) => m.to.includes('ops@acme.test'))!;
  expect(mail.from).toBe('alerts@wirehook.test');
  expect(mail.raw).toMatch(/Subject: \[Wirehook\] Webhook deliveries are failing/);
  expect(mail.raw).toContain('mail-customer');
  expect(mail.raw).toContain('Environment: live');
});

it("the owner's e-mail at 80 % of the plan, once a month", async () => {
  const org = await wh.admin('org', 'create', '--name', 'Owned', '--plan', 'free', '--owner-email', 'owner@acme.test');
  await fillLiveUsage(wh, org['id'], 8_000);
  wh.clock.advance(61_000);
  const ownerMails = () => mails.filter((m) => m.to.includes('owner@acme.test'));
  await eventually(async () => {
    await wh.embedded.alertingWorker.tick();
    expect(ownerMails()).toHaveLength(1);
  }, 15_000);
  expect(ownerMails()[0]!.raw).toMatch(/Subject: \[Wirehook\] Webhook usage at 80 % of the plan/);
  wh.clock.advance(61_000);
  await wh.embedded.alertingWorker.tick();
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(ownerMails()).toHaveLength(1);
}, 60_000);
