// The delivery suite's signatures: a rotated secret signs beside the old one for 24 hours; the
// compat signature.
import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@wirehook/testkit';
import type { TestTenant } from '../support/harness.ts';
import { verifyAt, type NamedReceiver } from '../support/receivers.ts';
import { S, DAY, type DeliveryHarness, type DeliverySuite } from '../support/delivery-suite-context.ts';

/** Registers the part in the calling describe. */
export function describeSignatures(suite: DeliverySuite): void {
  describe('signatures', () => {
    const { endpoint, send, requestsFor } = suite;
    let wh: DeliveryHarness;
    let t: TestTenant;
    let rx: NamedReceiver;
    beforeAll(() => {
      ({ wh, t, rx } = suite);
    });

    it('rotation: both secrets sign for 24 hours, then only the new one', async () => {
      const ep = await endpoint();
      const rotated = (await t.api.post(`/v1/endpoints/${ep.id}/rotate-secret`)).body.secret as string;
      const during = (await send(ep.consumer)).body.id;
      await eventually(() => expect(requestsFor(rx, during)).toHaveLength(1));
      const req = requestsFor(rx, during)[0]!;
      expect(req.headers['webhook-signature']!.split(' ')).toHaveLength(2);
      expect(verifyAt(rx.receiver, ep.secret, req, wh.clock.now())).toBeTruthy();
      expect(verifyAt(rx.receiver, rotated, req, wh.clock.now())).toBeTruthy();

      await wh.advance(DAY + S);
      const after = (await send(ep.consumer)).body.id;
      await eventually(() => expect(requestsFor(rx, after)).toHaveLength(1));
      const later = requestsFor(rx, after)[0]!;
      expect(later.headers['webhook-signature']!.split(' ')).toHaveLength(1);
      expect(verifyAt(rx.receiver, rotated, later, wh.clock.now())).toBeTruthy();
      expect(() => verifyAt(rx.receiver, ep.secret, later, wh.clock.now())).toThrow();
    });

    it.each([
      ['timestamp_body', 'hex', 'sha256='],
      ['body', 'base64', ''],
    ] as const)('compat signature (%s, %s) checks out', async (content, encoding, prefix) => {
      const ep = await endpoint({ compat_signature: { header: 'X-Partner-Signature', content, encoding, prefix } });
      const msgId = (await send(ep.consumer, { compat: true })).body.id;
      await eventually(() => expect(requestsFor(rx, msgId)).toHaveLength(1));
      const req = requestsFor(rx, msgId)[0]!;
      const key = Buffer.from(ep.secret.slice('whsec_'.length), 'base64');
      const signed = content === 'body' ? req.body : `${req.headers['webhook-timestamp']}.${req.body}`;
      const expected = prefix + createHmac('sha256', key).update(signed).digest(encoding);
      expect(req.headers['x-partner-signature']).toBe(expected);
    });

    it('custom headers arrive as set beside a valid signature; shown redacted; a PATCH replaces the set, null removes it', async () => {
      const ep = await endpoint({ headers: { 'X-Api-Key': 'gw-key-0123456789', 'X-Tenant': 'acme-corporation', 'X-Short': 'abc' } });
      const shown = { 'x-api-key': '…6789', 'x-tenant': '…tion', 'x-short': '…' };
      expect((await t.api.get(`/v1/endpoints/${ep.id}`)).body.headers).toEqual(shown);
      const first = (await send(ep.consumer)).body.id;
      await eventually(() => expect(requestsFor(rx, first)).toHaveLength(1));
      const req = requestsFor(rx, first)[0]!;
      expect(req.headers).toMatchObject({ 'x-api-key': 'gw-key-0123456789', 'x-tenant': 'acme-corporation', 'x-short': 'abc' });
      expect(verifyAt(rx.receiver, ep.secret, req, wh.clock.now())).toBeTruthy();

      const patched = await t.api.patch(`/v1/endpoints/${ep.id}`, { headers: { 'X-Api-Key': 'gw-key-rotated-9999' } });
      expect(patched.status).toBe(200);
      expect(patched.body.headers).toEqual({ 'x-api-key': '…9999' });
      const second = (await send(ep.consumer)).body.id;
      await eventually(() => expect(requestsFor(rx, second)).toHaveLength(1));
      expect(requestsFor(rx, second)[0]!.headers['x-api-key']).toBe('gw-key-rotated-9999');
      expect(requestsFor(rx, second)[0]!.headers['x-tenant']).toBeUndefined();

      expect((await t.api.patch(`/v1/endpoints/${ep.id}`, { headers: null })).body.headers).toBeNull();
      const third = (await send(ep.consumer)).body.id;
      await eventually(() => expect(requestsFor(rx, third)).toHaveLength(1));
      expect(requestsFor(rx, third)[0]!.headers['x-api-key']).toBeUndefined();
    });
  });
}
