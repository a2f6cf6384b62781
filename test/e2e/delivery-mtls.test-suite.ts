// The delivery suite's mutual TLS: receivers that refuse a connection without a client
// certificate of their own CA. Without the endpoint's `tls` the attempt fails as `tls`; with it
// the webhook arrives and verifies with standardwebhooks; a receiver whose server certificate
// is from a private CA is reached once that CA is the endpoint's `server_ca`.
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually, testCa, testClientCertificate, untrustedCertificate } from '@wirehook/testkit';
import type { TestTenant } from '../support/harness.ts';
import { startReceiver, verifyAt, type NamedReceiver } from '../support/receivers.ts';
import type { DeliveryHarness, DeliverySuite } from '../support/delivery-suite-context.ts';

/** Registers the part in the calling describe. */
export function describeMutualTls(suite: DeliverySuite): void {
  describe('mutual TLS (tls)', () => {
    const { endpoint, send, requestsFor, detail, extra } = suite;
    let wh: DeliveryHarness;
    let t: TestTenant;
    let mutual: NamedReceiver;
    let privateCa: NamedReceiver;
    let client: { certPem: string; keyPem: string };
    beforeAll(async () => {
      ({ wh, t } = suite);
      const clientCa = (await testCa()).caPem;
      client = await testClientCertificate();
      mutual = await startReceiver({ clientCa });
      privateCa = await startReceiver({ clientCa, untrusted: true });
      extra.push(mutual, privateCa);
    });

    it('without a client certificate the receiver refuses the handshake: the attempt fails as tls, and is retried', async () => {
      const ep = await endpoint({}, mutual.url());
      const id = (await send(ep.consumer)).body.id;
      await eventually(async () =>
        expect((await detail(id)).deliveries[0].attempts).toEqual([expect.objectContaining({ error: expect.stringMatching(/^tls: /) })]),
      );
      expect((await detail(id)).deliveries[0].status).toBe('retrying');
      expect(requestsFor(mutual, id)).toEqual([]);
    });

    it('with it the webhook arrives and verifies; the response shows the certificate, never the key', async () => {
      const ep = await endpoint({ tls: { client_certificate: client.certPem, client_key: client.keyPem } }, mutual.url());
      const shown = (await t.api.get(`/v1/endpoints/${ep.id}`)).body;
      expect(shown.tls).toEqual({
        subject: 'CN=wirehook-test-client',
        issuer: expect.stringMatching(/^CN=/),
        not_after: expect.any(Number),
        fingerprint_sha256: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
        server_ca_subject: null,
      });
      expect(JSON.stringify(shown)).not.toContain('PRIVATE KEY');
      const id = (await send(ep.consumer)).body.id;
      await eventually(() => expect(requestsFor(mutual, id)).toHaveLength(1));
      expect(verifyAt(mutual.receiver, ep.secret, requestsFor(mutual, id)[0]!, wh.clock.now())).toBeTruthy();
      // The attempt is recorded after the receiver answered: wait for it, not only for the request.
      await eventually(async () => expect((await detail(id)).deliveries[0]).toMatchObject({ status: 'success' }));
    });

    it('a receiver with a private CA’s server certificate is reached with that CA as server_ca (and refused as tls without it)', async () => {
      const ca = (await untrustedCertificate()).caPem;
      const without = await endpoint({ tls: { client_certificate: client.certPem, client_key: client.keyPem } }, privateCa.url());
      const refused = (await send(without.consumer)).body.id;
      await eventually(async () =>
        expect((await detail(refused)).deliveries[0].attempts).toEqual([expect.objectContaining({ error: expect.stringMatching(/^tls: /) })]),
      );
      const ep = await endpoint({ tls: { client_certificate: client.certPem, client_key: client.keyPem, server_ca: ca } }, privateCa.url());
      expect((await t.api.get(`/v1/endpoints/${ep.id}`)).body.tls.server_ca_subject).toBe('CN=Wirehook Untrusted Test CA');
      const id = (await send(ep.consumer)).body.id;
      await eventually(() => expect(requestsFor(privateCa, id)).toHaveLength(1));
      expect(verifyAt(privateCa.receiver, ep.secret, requestsFor(privateCa, id)[0]!, wh.clock.now())).toBeTruthy();
    });

    it('a PATCH sets it on an existing endpoint and null removes it (the next attempt is refused again)', async () => {
      const ep = await endpoint({}, mutual.url());
      const patched = await t.api.patch(`/v1/endpoints/${ep.id}`, { tls: { client_certificate: client.certPem, client_key: client.keyPem } });
      expect(patched.status).toBe(200);
      expect(patched.body.tls.subject).toBe('CN=wirehook-test-client');
      const id = (await send(ep.consumer)).body.id;
      await eventually(() => expect(requestsFor(mutual, id)).toHaveLength(1));
      expect((await t.api.patch(`/v1/endpoints/${ep.id}`, { tls: null })).body.tls).toBeNull();
      const after = (await send(ep.consumer)).body.id;
      await eventually(async () =>
        expect((await detail(after)).deliveries[0].attempts).toEqual([expect.objectContaining({ error: expect.stringMatching(/^tls: /) })]),
      );
    });
  });
}
