// What the delivery suite's parts share: the Wirehook under test, a tenant and a receiver,
// started once for the whole suite, and the helpers that make endpoints and send messages.
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Harness, TestTenant } from './harness.ts';
import { startReceiver, type NamedReceiver } from './receivers.ts';

export const S = 1_000;
export const M = 60 * S;
export const H = 60 * M;
export const DAY = 24 * H;

/** What the suite needs of a running Wirehook, in-process or as a cluster of processes. */
export type DeliveryHarness = Pick<Harness, 'url' | 'tenant' | 'key' | 'advance' | 'close'> & {
  clock: { now(): number };
};

/** The suite's shared state and helpers (wh, t and rx from the suite's beforeAll on). */
export type DeliverySuite = ReturnType<typeof deliverySuiteContext>;

/**
 * Registers the suite's hooks in the calling describe — start Wirehook, a tenant and a receiver
 * before all; reset the receiver after each; close everything after all — and returns the
 * shared state and helpers.
 */
export function deliverySuiteContext(start: () => Promise<DeliveryHarness>) {
  let wh: DeliveryHarness;
  let t: TestTenant;
  let rx: NamedReceiver;
  const extra: NamedReceiver[] = [];

  beforeAll(async () => {
    wh = await start();
    t = await wh.tenant();
    rx = await startReceiver();
  }, 180_000); // cluster mode: ten processes starting on a loaded machine
  afterEach(() => {
    rx.receiver.respondWith({});
    rx.receiver.clear();
  });
  afterAll(async () => {
    await wh.close();
    await Promise.all([rx, ...extra].map((r) => r.receiver.close()));
  });

  let seq = 0;
  /** A consumer with one endpoint; returns ids and the secret. */
  async function endpoint(body: Record<string, unknown> = {}, url = rx.url()) {
    const consumer = `c${++seq}`;
    const consumerId = (await t.api.post('/v1/consumers', { external_id: consumer })).body.id;
    const res = await t.api.post('/v1/endpoints', { consumer_id: consumerId, url, ...body });
    expect(res.status).toBe(201);
    return { consumer, consumerId, id: res.body.id as string, secret: res.body.secret as string };
  }

  async function send(consumer: string, payload: unknown = { n: 1 }, eventType = 'invoice.paid', headers?: Record<string, string>) {
    const res = await t.api.post('/v1/messages', { consumer, event_type: eventType, payload }, headers);
    expect(res.status).toBe(202);
    return res;
  }

  const detail = async (id: string) => (await t.api.get(`/v1/messages/${id}`)).body;
  const requestsFor = (r: NamedReceiver, msgId: string) => r.receiver.requests.filter((q) => q.headers['webhook-id'] === msgId);

  return {
    get wh() {
      return wh;
    },
    get t() {
      return t;
    },
    get rx() {
      return rx;
    },
    /** Receivers a case starts besides rx; closed after all. */
    extra,
    /** The next number of the suite's consumer names (unique across its cases). */
    nextSeq: () => ++seq,
    endpoint,
    send,
    detail,
    requestsFor,
  };
}
