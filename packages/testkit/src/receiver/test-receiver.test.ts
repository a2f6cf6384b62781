import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import { promisify } from 'node:util';
import { signatureKey, standardSignature } from '@wirehook/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RECEIVER_TEST_HOST } from './test-ca.ts';
import { TestReceiver, untrustedReceiver } from './test-receiver.ts';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** POSTs with node:https, trusting only `ca`; `address` pins where the host name goes. */
function post(url: string, ca: string, body: string, headers: Record<string, string> = {}, address?: string): Promise<Reply> {
  const lookup: LookupFunction | undefined =
    address === undefined ? undefined : (_host, _opts, cb) => process.nextTick(() => (_opts.all ? cb(null, [{ address, family: 4 }]) : cb(null, address, 4)));
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca, headers, agent: false, ...(lookup ? { lookup } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let receiver: TestReceiver;

beforeAll(async () => {
  receiver = await TestReceiver.start();
});

afterAll(async () => {
  await receiver.close();
});

beforeEach(() => {
  receiver.clear();
  receiver.respondWith({});
});

describe('TestReceiver', () => {
  it('listens on https://localhost:<port> and records what it gets', async () => {
    expect(receiver.url).toBe(`https://localhost:${receiver.port}`);
    const reply = await post(`${receiver.url}/in?a=1`, receiver.caPem, 'héllo', { 'X-Test': 'yes' });
    expect(reply).toMatchObject({ status: 200, body: '' });
    expect(receiver.requests).toHaveLength(1);
    const got = receiver.requests[0]!;
    expect(got).toMatchObject({ method: 'POST', path: '/in?a=1', body: 'héllo', connection: 1 });
    expect(got.rawBody.equals(Buffer.from('héllo'))).toBe(true);
    expect(got.headers['x-test']).toBe('yes');
    expect(Math.abs(got.receivedAt - Date.now())).toBeLessThan(5_000);
    receiver.clear();
    expect(receiver.requests).toHaveLength(0);
  });

  it('answers as scripted: fixed answers, functions, redirects', async () => {
    receiver.respondWith({ status: 503, body: 'busy', headers: { 'retry-after': '7' } });
    expect(await post(receiver.url, receiver.caPem, '')).toMatchObject({ status: 503, body: 'busy', headers: { 'retry-after': '7' } });
    receiver.respondWith((req) => ({ status: 201, body: `echo:${req.body}` }));
    expect(await post(receiver.url, receiver.caPem, 'x')).toMatchObject({ status: 201, body: 'echo:x' });
    receiver.respondWith({ redirectTo: 'https://elsewhere.example/' });
    expect(await post(receiver.url, receiver.caPem, '')).toMatchObject({ status: 302, headers: { location: 'https://elsewhere.example/' } });
    receiver.respondWith(() => {
      throw new Error('oops');
    });
    expect(await post(receiver.url, receiver.caPem, '')).toMatchObject({ status: 500, body: 'responder failed: oops' });
  });

  it('waits delayMs before answering', async () => {
    receiver.respondWith({ delayMs: 150 });
    const started = Date.now();
    await post(receiver.url, receiver.caPem, '');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('verifies a recorded request with the official library and returns the payload', async () => {
    const secret = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
    const body = '{"type":"a.b","timestamp":"2026-01-15T12:00:00.000Z","data":{"n":1}}';
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(ts),
      'webhook-signature': standardSignature([signatureKey(secret)], 'msg_1', ts, body),
    };
    await post(receiver.url, receiver.caPem, body, headers);
    expect(receiver.verify(secret)).toEqual(JSON.parse(body));
    expect(() => receiver.verify('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toThrow(/No matching signature/);
    receiver.clear();
    expect(() => receiver.verify(secret)).toThrow(/no request/);
  });

  it('writes its CA to caFile, which a spawned process can trust via NODE_EXTRA_CA_CERTS', async () => {
    expect(readFileSync(receiver.caFile, 'utf8')).toBe(receiver.caPem);
    const script = `const r = await fetch(process.argv[1], { method: 'POST', body: 'from child' }); console.log(r.status);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, receiver.url], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: receiver.caFile },
    });
    expect(stdout.trim()).toBe('200');
    expect(receiver.requests.map((r) => r.body)).toEqual(['from child']);
  });
});

describe('TestReceiver on another loopback address', () => {
  it('listens there and is reachable as <name>.receiver.wirehook.test (wildcard in the certificate)', async () => {
    const other = await TestReceiver.start({ host: '127.0.0.9' });
    try {
      expect(other.host).toBe('127.0.0.9');
      expect(other.url).toBe(`https://127.0.0.9:${other.port}`);
      const reply = await post(`https://r9.${RECEIVER_TEST_HOST}:${other.port}/x`, other.caPem, 'hi', {}, '127.0.0.9');
      expect(reply.status).toBe(200);
      expect(other.requests.map((r) => [r.path, r.headers.host])).toEqual([['/x', `r9.${RECEIVER_TEST_HOST}:${other.port}`]]);
    } finally {
      await other.close();
    }
  });
});

describe('untrustedReceiver', () => {
  it('fails the TLS handshake of a client trusting the test CA', async () => {
    const untrusted = await untrustedReceiver();
    try {
      expect(untrusted.caPem).toBe(receiver.caPem);
      await expect(post(untrusted.url, untrusted.caPem, '')).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
      expect(untrusted.requests).toHaveLength(0);
    } finally {
      await untrusted.close();
    }
  });
});
