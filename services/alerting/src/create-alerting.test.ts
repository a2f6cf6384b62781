// The factory both composition roots (embedded mode, the alerting process) call, end to end
// inside the test process: a failure in a SQLite store, the worker it built, and real
// receivers — an HTTPS receiver and an SMTP server on loopback. The config reaches the
// notices' own egress (DELIVERY_ALLOW_HOSTS, DELIVERY_RESOLVE, half the send bound each for
// connecting and answering) and the mail transport (SMTP_URL, ALERT_EMAIL_FROM).
import type { AddressInfo } from 'node:net';
import { newId, newSigningSecret, SecretBox, type AlertTargetId, type OrgId, type Tenant } from '@wirehook/core';
import { silentLogger } from '@wirehook/platform';
import { testCa } from '@wirehook/testkit';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type NamedReceiver } from '../../../test/support/receivers.ts';
import { createAlerting } from './create-alerting.ts';
import { AlertScene } from './testing/alert-scene.ts';

const box = SecretBox.fromBase64(SecretBox.generateKey());
let named: NamedReceiver;
let smtp: SMTPServer;
let smtpUrl: string;
const mails: { from: string; to: string[] }[] = [];
let scene: AlertScene;
let built: ReturnType<typeof createAlerting> | undefined;

beforeAll(async () => {
  named = await startReceiver();
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      stream.resume();
      stream.on('end', () => {
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await named?.receiver.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});
afterEach(async () => {
  for (const c of [...(built?.components ?? [])].reverse()) await c.stop();
  built = undefined;
  await scene?.close();
  named.receiver.respondWith({});
  named.receiver.clear();
  mails.length = 0;
});

type Config = Parameters<typeof createAlerting>[0];
/** The factory on a new scene; the receiver's name resolved and its CA trusted, unless the config says otherwise. */
async function build(config: Partial<Config> = {}, sendTimeoutMs?: number) {
  scene = new AlertScene();
  built = createAlerting(
    { DELIVERY_ALLOW_HOSTS: '127.0.0.0/8', DELIVERY_RESOLVE: `${named.host}:${named.ip}`, ...config },
    { store: scene.store, clock: scene.clock, logger: silentLogger(), secretBox: box, ca: (await testCa()).caPem, sendTimeoutMs },
  );
  return built;
}
/** An organization with one target made by `make`, and one exhausted delivery: the failure notice is due. */
async function failing(make: (orgId: OrgId, id: AlertTargetId) => Promise<unknown>): Promise<{ org: OrgId; target: AlertTargetId }> {
  const org = await scene.org();
  const t: Tenant = { orgId: org, env: 'live' };
  const target = newId('alertTarget', scene.clock);
  await make(org, target);
  await scene.fail(t, await scene.endpoint(t));
  return { org, target };
}
const webhook = (secret: string) => (orgId: OrgId, id: AlertTargetId) =>
  scene.store.alerts.createTarget(
    { orgId, env: 'live' },
    { id, type: 'webhook', url: named.url('/alerts'), address: null, sealedSecret: box.seal(secret, id), createdAt: scene.clock.now() },
  );
const email = (address: string) => (orgId: OrgId, id: AlertTargetId) =>
  scene.store.alerts.createTarget({ orgId, env: 'live' }, { id, type: 'email', url: null, address, sealedSecret: null, createdAt: scene.clock.now() });
async function round(alerting: ReturnType<typeof createAlerting>): Promise<void> {
  await alerting.worker.tick();
  await alerting.worker.idle();
}
const tries = (f: { org: OrgId; target: AlertTargetId }) => scene.store.alerts.noticeAttempts(f.org, f.target, 10);

describe('createAlerting', () => {
  it('webhook notices go through its egress (DELIVERY_RESOLVE, CA honoured), signed with the target’s secret; the egress closes after the worker', async () => {
    const alerting = await build();
    expect(alerting.components.map((c) => c.name)).toEqual(['alerting-egress', 'alerting']);
    const secret = newSigningSecret();
    const f = await failing(webhook(secret));
    await round(alerting);
    expect(named.receiver.requests).toHaveLength(1);
    expect(named.receiver.verify(secret)).toMatchObject({ type: 'alert.delivery_failure' });
    expect((await tries(f)).map((a) => a.responseStatus)).toEqual([200]);
  });

  it('DELIVERY_ALLOW_HOSTS holds for notices: without it a loopback receiver is blocked, and nothing reaches it', async () => {
    const alerting = await build({ DELIVERY_ALLOW_HOSTS: '' });
    const f = await failing(webhook(newSigningSecret()));
    await round(alerting);
    expect((await tries(f)).map((a) => a.error)).toEqual([
      expect.stringMatching(/^blocked: host "r\d+\.receiver\.wirehook\.test" resolves to 127\.0\.0\.\d+, a loopback address/),
    ]);
    expect(named.receiver.requests).toHaveLength(0);
  });

  it('a send is bounded: the egress gives connecting and answering half of sendTimeoutMs each', async () => {
    named.receiver.respondWith({ hang: true });
    const alerting = await build({}, 400);
    const f = await failing(webhook(newSigningSecret()));
    await round(alerting);
    expect((await tries(f)).map((a) => a.error)).toEqual(['timeout: no response within 0.2 s']);
  });

  it('SMTP_URL set: e-mail targets are mailed from ALERT_EMAIL_FROM, or wirehook@localhost without it', async () => {
    const alerting = await build({ SMTP_URL: smtpUrl });
    const f = await failing(email('ops@acme.test'));
    await round(alerting);
    expect(mails).toEqual([{ from: 'wirehook@localhost', to: ['ops@acme.test'] }]);
    expect((await tries(f)).map((a) => a.error)).toEqual([null]);

    for (const c of [...alerting.components].reverse()) await c.stop();
    await scene.close();
    const from = await build({ SMTP_URL: smtpUrl, ALERT_EMAIL_FROM: 'alerts@acme.test' });
    await failing(email('sre@acme.test'));
    await round(from);
    expect(mails.at(-1)).toEqual({ from: 'alerts@acme.test', to: ['sre@acme.test'] });
  });

  it('SMTP_URL unset: an e-mail target’s try is recorded as failed, saying why', async () => {
    const alerting = await build();
    const f = await failing(email('ops@acme.test'));
    await round(alerting);
    expect((await tries(f)).map((a) => a.error)).toEqual(['smtp: no SMTP_URL configured']);
    expect(mails).toHaveLength(0);
  });
});
