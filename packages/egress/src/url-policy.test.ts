import { isIP } from 'node:net';
import { InvalidError } from '@wirehook/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AddressPolicy } from './address-policy.ts';
import { checkEndpointUrl, checkHost, systemLookup, type LookupFn } from './url-policy.ts';

interface TableLookup extends LookupFn {
  calls: string[];
}

/** A resolver answering from a table; names not in it fail like getaddrinfo's ENOTFOUND. */
function tableLookup(table: Record<string, string[]>): TableLookup {
  const calls: string[] = [];
  const fn = async (host: string) => {
    calls.push(host);
    const addresses = table[host];
    if (addresses === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    }
    return addresses.map((address) => ({ address, family: isIP(address) }));
  };
  return Object.assign(fn, { calls });
}

const TABLE = {
  'public.example': ['93.184.216.34', '2606:2800:220:1::1'],
  'public.example.': ['93.184.216.34'],
  'private.example': ['10.0.0.5'],
  'mixed.example': ['93.184.216.34', '10.0.0.5'],
  'mixed6.example': ['2606:2800:220:1::1', '::ffff:127.0.0.1'],
  'metadata.example': ['169.254.169.254'],
  'ula.example': ['2606:2800:220:1::1', 'fd00::1'],
  'loopback.example': ['127.0.0.1', '::1'],
  'cgnat.example': ['100.64.0.7'],
  'empty.example': [],
  'receiver.internal': ['10.0.0.9'],
  'dev.test': ['127.0.0.1'],
};

const noAllowList = new AddressPolicy();

/** Awaits a check that must be refused and returns the InvalidError. */
async function refusal(check: Promise<unknown>): Promise<InvalidError> {
  const err = await check.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvalidError);
  return err as InvalidError;
}

describe('checkEndpointUrl: names that resolve', () => {
  it('accepts a name resolving only to public addresses and looks it up once', async () => {
    const lookup = tableLookup(TABLE);
    await expect(checkEndpointUrl('https://public.example/hooks', { policy: noAllowList, lookup })).resolves.toBeUndefined();
    expect(lookup.calls).toEqual(['public.example']);
  });

  it('returns the checked addresses from checkHost, so the sender can connect to them', async () => {
    const lookup = tableLookup(TABLE);
    const addresses = await checkHost('public.example', { policy: noAllowList, lookup });
    expect(addresses).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
  });

  it('keeps a trailing dot when resolving', async () => {
    const lookup = tableLookup(TABLE);
    await checkEndpointUrl('https://Public.Example.:8443/', { policy: noAllowList, lookup });
    expect(lookup.calls).toEqual(['public.example.']);
  });

  it.each([
    ['private.example', 'resolves to 10.0.0.5, a private address'],
    ['mixed.example', 'resolves to 10.0.0.5, a private address'],
    ['mixed6.example', 'resolves to ::ffff:127.0.0.1, an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['metadata.example', 'resolves to 169.254.169.254, a link-local (cloud metadata) address'],
    ['ula.example', 'resolves to fd00::1, a unique-local address'],
    ['loopback.example', 'resolves to 127.0.0.1, a loopback address'],
    ['cgnat.example', 'resolves to 100.64.0.7, a carrier-grade NAT address'],
  ])('refuses %s: %s', async (host, expected) => {
    const err = await refusal(checkEndpointUrl(`https://${host}/`, { policy: noAllowList, lookup: tableLookup(TABLE) }));
    expect(err.message).toBe(`url host "${host}" ${expected}; endpoint URLs must resolve only to public addresses`);
    expect(err.status).toBe(422);
    expect(err.toBody().error).toBe('invalid');
  });

  it('accepts private resolution inside an allowed CIDR, but not outside it', async () => {
    const policy = new AddressPolicy({ allowHosts: '10.0.0.0/8' });
    const lookup = tableLookup({ ...TABLE, 'lab.example': ['10.1.1.1', '192.168.0.1'] });
    await expect(checkEndpointUrl('https://private.example/', { policy, lookup })).resolves.toBeUndefined();
    await expect(checkEndpointUrl('https://mixed.example/', { policy, lookup })).resolves.toBeUndefined();
    const err = await refusal(checkEndpointUrl('https://lab.example/', { policy, lookup }));
    expect(err.message).toContain('resolves to 192.168.0.1, a private address');
  });

  it('skips the address check for a listed host name', async () => {
    const policy = new AddressPolicy({ allowHosts: 'dev.test' });
    const lookup = tableLookup(TABLE);
    await expect(checkEndpointUrl('https://dev.test/', { policy, lookup })).resolves.toBeUndefined();
    expect(lookup.calls).toEqual(['dev.test']);
  });
});

describe('checkEndpointUrl: names that do not resolve', () => {
  it('refuses a name that is not found', async () => {
    const err = await refusal(checkEndpointUrl('https://nx.example/', { policy: noAllowList, lookup: tableLookup(TABLE) }));
    expect(err.message).toBe('url host "nx.example" does not resolve');
  });

  it('refuses an empty answer', async () => {
    const err = await refusal(checkEndpointUrl('https://empty.example/', { policy: noAllowList, lookup: tableLookup(TABLE) }));
    expect(err.message).toBe('url host "empty.example" does not resolve');
  });

  it('refuses other resolver failures and names their code', async () => {
    const lookup: LookupFn = async () => {
      throw Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' });
    };
    const err = await refusal(checkEndpointUrl('https://flaky.example/', { policy: noAllowList, lookup }));
    expect(err.message).toBe('url host "flaky.example" does not resolve (EAI_AGAIN)');
  });

  it('refuses when the lookup throws synchronously', async () => {
    const lookup: LookupFn = () => {
      throw new Error('boom');
    };
    const err = await refusal(checkEndpointUrl('https://sync.example/', { policy: noAllowList, lookup }));
    expect(err.message).toBe('url host "sync.example" does not resolve');
  });

  it('still requires a listed host name to resolve', async () => {
    const policy = new AddressPolicy({ allowHosts: 'gone.internal' });
    const err = await refusal(checkEndpointUrl('https://gone.internal/', { policy, lookup: tableLookup(TABLE) }));
    expect(err.message).toBe('url host "gone.internal" does not resolve');
  });

  it('refuses a lookup that does not answer within timeoutMs', async () => {
    const never: LookupFn = () => new Promise(() => {});
    const started = Date.now();
    const err = await refusal(checkEndpointUrl('https://slow.example/', { policy: noAllowList, lookup: never, timeoutMs: 30 }));
    expect(err.message).toBe('url host "slow.example" did not resolve within 0.03 s');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  describe('with the default timeout', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('waits 2 s, then refuses', async () => {
      vi.useFakeTimers();
      const never: LookupFn = () => new Promise(() => {});
      let settled = false;
      const check = checkEndpointUrl('https://slow.example/', { policy: noAllowList, lookup: never });
      const outcome = check.then(
        () => null,
        (e: unknown) => e,
      );
      void outcome.then(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(1999);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const err = await outcome;
      expect(err).toBeInstanceOf(InvalidError);
      expect((err as InvalidError).message).toBe('url host "slow.example" did not resolve within 2 s');
    });
  });
});

describe('checkEndpointUrl: raw IP addresses', () => {
  it.each([
    ['https://10.0.0.5/', '10.0.0.5'],
    ['https://8.8.8.8/', '8.8.8.8'],
    ['https://127.0.0.1:8443/', '127.0.0.1'],
    ['https://2130706433/', '127.0.0.1'],
    ['https://0x7f.1/', '127.0.0.1'],
    ['https://[::1]:8443/', '[::1]'],
    ['https://[2606:4700::1111]/', '[2606:4700::1111]'],
    ['https://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
  ])('refuses %s without a lookup', async (url, shown) => {
    const lookup = tableLookup(TABLE);
    const err = await refusal(checkEndpointUrl(url, { policy: noAllowList, lookup }));
    expect(err.message).toBe(`url host ${shown} is a raw IP address; endpoint URLs must use a public host name`);
    expect(lookup.calls).toEqual([]);
  });

  it('accepts a raw IP inside the allow list and nothing else', async () => {
    const policy = new AddressPolicy({ allowHosts: '127.0.0.1, ::1, 10.0.0.0/8' });
    const lookup = tableLookup(TABLE);
    for (const url of ['https://127.0.0.1:8443/', 'https://[::1]/', 'https://10.2.3.4/']) {
      await expect(checkEndpointUrl(url, { policy, lookup })).resolves.toBeUndefined();
    }
    await refusal(checkEndpointUrl('https://127.0.0.2/', { policy, lookup }));
    await refusal(checkEndpointUrl('https://11.0.0.1/', { policy, lookup }));
    expect(lookup.calls).toEqual([]);
  });

  it('returns the literal from checkHost when allowed', async () => {
    const policy = new AddressPolicy({ allowHosts: '::1' });
    await expect(checkHost('[::1]', { policy, lookup: tableLookup({}) })).resolves.toEqual([{ address: '::1', family: 6 }]);
  });
});

describe('checkEndpointUrl: internal host names', () => {
  it.each([
    ['https://localhost/', 'localhost'],
    ['https://LOCALHOST./', 'localhost.'],
    ['https://api.internal/', 'api.internal'],
    ['https://foo.svc.cluster.local/', 'foo.svc.cluster.local'],
    ['https://intranet:8443/', 'intranet'],
    ['https://box.home.arpa/', 'box.home.arpa'],
  ])('refuses %s without a lookup', async (url, shown) => {
    const lookup = tableLookup(TABLE);
    const err = await refusal(checkEndpointUrl(url, { policy: noAllowList, lookup }));
    expect(err.message).toBe(`url host "${shown}" is an internal host name; endpoint URLs must use a public host name`);
    expect(lookup.calls).toEqual([]);
  });

  it('accepts a listed internal name whatever it resolves to', async () => {
    const policy = new AddressPolicy({ allowHosts: 'receiver.internal' });
    const lookup = tableLookup(TABLE);
    await expect(checkEndpointUrl('https://receiver.internal/', { policy, lookup })).resolves.toBeUndefined();
    await refusal(checkEndpointUrl('https://other.internal/', { policy, lookup }));
  });
});

describe('checkEndpointUrl: input', () => {
  it('refuses a string that is not a URL', async () => {
    const err = await refusal(checkEndpointUrl('not a url', { policy: noAllowList, lookup: tableLookup(TABLE) }));
    expect(err.message).toBe('url is not a valid URL');
  });
});

describe('checkEndpointUrl with the system resolver', () => {
  it('refuses a name under .invalid as not resolving', async () => {
    // Generous timeout: the point is the resolver's answer, not its speed.
    const err = await refusal(checkEndpointUrl('https://wirehook-no-such-host.invalid/', { policy: noAllowList, lookup: systemLookup, timeoutMs: 10_000 }));
    expect(err.message).toMatch(/^url host "wirehook-no-such-host\.invalid" does not resolve/);
  });

  it('accepts localhost when the allow list names it, resolving it to loopback', async () => {
    const policy = new AddressPolicy({ allowHosts: 'localhost' });
    await expect(checkEndpointUrl('https://localhost:8443/', { policy })).resolves.toBeUndefined();
    const addresses = await checkHost('localhost', { policy, lookup: systemLookup, timeoutMs: 10_000 });
    expect(addresses.length).toBeGreaterThan(0);
    for (const { address } of addresses) expect(['127.0.0.1', '::1']).toContain(address);
  });
});
