// The bench receiver's own address: two at once (two benches, or a bench and another
// checkout's suite) each listen on a loopback address of their own instead of one waiting for
// the other's 127.0.0.1:8443, and each is reached by its test name through TLS.
import { afterAll, describe, expect, it } from 'vitest';
import { createPool } from '../../bench/http/undici.ts';
import { BenchReceiver } from '../../bench/receiver/receiver-client.ts';

const started: BenchReceiver[] = [];
afterAll(() => Promise.all(started.map((r) => r.close())));

describe('the bench receiver', () => {
  it('listens on 8443 of a loopback address of its own; two at once get two, each reached by its name', async () => {
    const [a, b] = await Promise.all([BenchReceiver.start(), BenchReceiver.start()]);
    started.push(a!, b!);
    for (const receiver of [a!, b!]) {
      const n = /^127\.0\.1\.(\d{1,3})$/.exec(receiver.ip)?.[1];
      expect(n, receiver.ip).toBeDefined();
      expect(receiver.port).toBe(8443);
      expect(receiver.host).toBe(`b${n}.receiver.wirehook.test`);
      expect(receiver.origin).toBe(`https://b${n}.receiver.wirehook.test:8443`);
      expect(receiver.wirehookEnv).toEqual({ DELIVERY_RESOLVE: `${receiver.host}:${receiver.ip}`, DELIVERY_ALLOW_HOSTS: receiver.ip });
    }
    expect(a!.ip).not.toBe(b!.ip);

    // A request to a's address, the certificate checked for a's name, reaches a and only a.
    const pool = createPool(`https://${a!.ip}:8443`, 1, { ca: a!.ca.caPem, servername: a!.host });
    try {
      const res = await pool.request({ method: 'POST', path: '/r/none', body: '{}' });
      await res.body.dump();
      expect(res.statusCode).toBe(404);
    } finally {
      await pool.close();
    }
    expect((await a!.stats()).unknownRoute).toBe(1);
    expect((await b!.stats()).unknownRoute).toBe(0);
  });

  it('refuses a name the certificate does not hold', async () => {
    const receiver = await BenchReceiver.start();
    started.push(receiver);
    const pool = createPool(`https://${receiver.ip}:8443`, 1, { ca: receiver.ca.caPem, servername: 'elsewhere.example' });
    try {
      await expect(pool.request({ method: 'POST', path: '/r/none', body: '{}' })).rejects.toThrow(/altnames|does not match|certificate/i);
    } finally {
      await pool.close();
    }
  });
});
