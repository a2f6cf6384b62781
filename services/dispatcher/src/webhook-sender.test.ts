// WebhookSender: which way a POST goes, what a send that cannot be made answers, and the
// one case with no attempt — a signing secret this process's key ring does not open.
import { SecretBox } from '@wirehook/core';
import { silentLogger } from '@wirehook/platform';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryLeases } from './delivery-leases.ts';
import { DispatchScene, FakeSender, OK } from './testing/dispatch-scene.ts';
import { WebhookSender, type Sender } from './webhook-sender.ts';

let s: DispatchScene;
let direct: FakeSender;
let relay: FakeSender;

beforeEach(() => {
  s = new DispatchScene();
  direct = new FakeSender();
  relay = new FakeSender();
});
afterEach(() => s.close());

function webhooks(sender: Sender = direct): WebhookSender {
  const leases = new DeliveryLeases({ store: s.store, clock: s.clock, logger: silentLogger(), metrics: s.metrics, leaseMs: 17_000 });
  return new WebhookSender({ sender, relay, secretBox: s.box, leases, clock: s.clock, logger: silentLogger(), metrics: s.metrics });
}

async function claimed(overrides: Parameters<DispatchScene['endpoint']>[0] = {}, box?: SecretBox) {
  const { t } = await s.endpoint(overrides, box);
  const [id] = await s.due(t);
  return s.claim(id!);
}

describe('WebhookSender', () => {
  it('sends a signed request to the endpoint directly, pooled by endpoint', async () => {
    const job = await claimed();
    expect(await webhooks().send(job, s.clock.now())).toEqual(OK);
    expect(direct.requests).toHaveLength(1);
    expect(direct.requests[0]).toMatchObject({ url: job.endpoint.url, poolKey: job.endpoint.id });
    expect(direct.requests[0]!.headers['webhook-signature']).toMatch(/^v1,/);
    expect(relay.requests).toHaveLength(0);
  });

  it('fixed_ip endpoints go through the relay, never directly', async () => {
    const job = await claimed({ fixedIp: true });
    expect(await webhooks().send(job, s.clock.now())).toEqual(OK);
    expect([relay.requests.length, direct.requests.length]).toEqual([1, 0]);
  });

  it('a URL the rules forbid is not sent to: a blocked result', async () => {
    const job = await claimed({ url: 'http://hooks.acme.example/wirehook' });
    expect(await webhooks().send(job, s.clock.now())).toMatchObject({ ok: false, status: null, error: 'blocked: url must use https' });
    expect(direct.requests).toHaveLength(0);
  });

  it('a sender that throws is an internal failure, not a crash', async () => {
    const job = await claimed();
    const broken: Sender = { send: () => Promise.reject(new Error('bug')) };
    expect(await webhooks(broken).send(job, s.clock.now())).toMatchObject({ ok: false, status: null, error: 'internal: the send failed inside Wirehook' });
  });

  it('a secret this key ring does not open: no request, null, counted, and due again a minute later', async () => {
    const job = await claimed({}, new SecretBox(Buffer.alloc(32, 9)));
    const now = s.clock.now();
    expect(await webhooks().send(job, now)).toBeNull();
    expect(direct.requests).toHaveLength(0);
    expect(await s.metric('wirehook_dispatch_unseal_errors_total')).toBe(1);
    expect(await s.dueAt(now + 59_999, [job.delivery.id])).toEqual([]);
    expect(await s.dueAt(now + 60_000, [job.delivery.id])).toEqual([job.delivery.id]);
  });
});
