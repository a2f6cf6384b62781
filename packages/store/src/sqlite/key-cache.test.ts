import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock, newId, type ApiKey, type Org, type Tenant } from '@wirehook/core';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Fixtures } from '../../test/contract/fixtures.ts';
import type { KeyWithOrg } from '../ports/api-key-port.ts';
import { fileAuthEpoch, KeyCache, memoryAuthEpoch, type AuthEpoch } from './key-cache.ts';
import { SQLITE_REPOS } from './repos.ts';
import { AUTH_WRITES, openThreadedSqliteStore } from './threaded-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'wirehook-key-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const clock = new ManualClock(Date.UTC(2026, 10, 30));

function found(n: number, plan: Org['plan'] = 'business'): KeyWithOrg {
  const org: Org = { id: `org_${n}` as Org['id'], name: `org ${n}`, plan, ownerEmail: null, createdAt: 0 } as Org;
  const key = { id: `key_${n}`, orgId: org.id, env: 'live', scopes: ['messages:send'], createdAt: 0, revokedAt: null, expiresAt: null } as unknown as ApiKey;
  return { key, org };
}

/** A lookup over `table` that counts its calls. */
function countingLookup(table: Map<string, KeyWithOrg>) {
  const calls: string[] = [];
  const lookup = async (hash: string) => {
    calls.push(hash);
    const hit = table.get(hash);
    return hit === undefined ? null : structuredClone(hit);
  };
  return { calls, lookup };
}

describe('KeyCache', () => {
  it('serves a key it looked up until the epoch moves, then looks it up again', async () => {
    const { calls, lookup } = countingLookup(new Map([['h1', found(1)]]));
    const cache = new KeyCache(memoryAuthEpoch(), lookup);
    const first = await cache.findByHash('h1');
    expect(await cache.findByHash('h1')).toBe(first);
    expect(calls).toEqual(['h1']);
    cache.changed();
    expect(await cache.findByHash('h1')).toEqual(first);
    expect(calls).toEqual(['h1', 'h1']);
  });

  it('keeps no unknown key: each lookup of one goes to the store', async () => {
    const { calls, lookup } = countingLookup(new Map());
    const cache = new KeyCache(memoryAuthEpoch(), lookup);
    expect(await cache.findByHash('nope')).toBeNull();
    expect(await cache.findByHash('nope')).toBeNull();
    expect(calls).toEqual(['nope', 'nope']);
  });

  it('does not keep a lookup that raced a change under the epoch after it', async () => {
    const table = new Map([['h1', found(1)]]);
    const epoch = memoryAuthEpoch();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { calls, lookup } = countingLookup(table);
    const cache = new KeyCache(epoch, async (hash) => {
      const answer = await lookup(hash); // read before the change…
      await gate; // …answered after it
      return answer;
    });
    const racing = cache.findByHash('h1');
    table.set('h1', found(1, 'starter'));
    cache.changed();
    release();
    expect((await racing)?.org.plan).toBe('business');
    expect((await cache.findByHash('h1'))?.org.plan).toBe('starter');
    expect(calls).toHaveLength(2);
  });

  it('keeps at most its size, the oldest kept going first', async () => {
    const { calls, lookup } = countingLookup(new Map([1, 2, 3].map((n) => [`h${n}`, found(n)])));
    const cache = new KeyCache(memoryAuthEpoch(), lookup, 2);
    for (const hash of ['h1', 'h2', 'h3', 'h2', 'h3', 'h1']) await cache.findByHash(hash);
    // h1 went when h3 came; h2 and h3 were served kept.
    expect(calls).toEqual(['h1', 'h2', 'h3', 'h1']);
  });

  it('hands out what it keeps frozen: one caller cannot change another’s key', async () => {
    const cache = new KeyCache(memoryAuthEpoch(), countingLookup(new Map([['h1', found(1)]])).lookup);
    const kept = (await cache.findByHash('h1'))!;
    expect(Object.isFrozen(kept.key) && Object.isFrozen(kept.key.scopes) && Object.isFrozen(kept.org)).toBe(true);
  });

  it('stands aside when the epoch cannot be read: every lookup goes to the store', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const broken: AuthEpoch = {
        read: () => {
          throw new Error('EIO');
        },
        bump: () => {},
        close: () => {},
      };
      const { calls, lookup } = countingLookup(new Map([['h1', found(1)]]));
      const cache = new KeyCache(broken, lookup);
      await cache.findByHash('h1');
      await cache.findByHash('h1');
      expect(calls).toEqual(['h1', 'h1']);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(/looked up on every request.*EIO/);
    } finally {
      warn.mockRestore();
    }
  });

  it('says so when a change cannot move the epoch, and stands aside', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      let epoch = 0;
      const full: AuthEpoch = {
        read: () => epoch,
        bump: () => {
          throw new Error('ENOSPC');
        },
        close: () => {},
      };
      const { calls, lookup } = countingLookup(new Map([['h1', found(1)]]));
      const cache = new KeyCache(full, lookup);
      await cache.findByHash('h1');
      expect(() => cache.changed()).toThrow(/the change is saved, but running Wirehook processes were not told of it.*ENOSPC.*restart them/);
      epoch = 0;
      await cache.findByHash('h1');
      expect(calls).toEqual(['h1', 'h1']);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('the auth epoch of a database file', () => {
  it('is shared by every opener: one’s change is what another reads next', () => {
    const path = join(dir, 'shared.sqlite');
    const [a, b] = [fileAuthEpoch(path), fileAuthEpoch(path)];
    try {
      const before = b.read();
      a.bump();
      expect(b.read()).toBe(before + 1);
      expect(statSync(`${path}-auth-epoch`).mode & 0o777).toBe(0o600);
    } finally {
      a.close();
      b.close();
    }
  });
});

describe('API keys through the threaded store', () => {
  function keyOf(t: Tenant): ApiKey {
    return { id: newId('key', clock), orgId: t.orgId, env: 'live', scopes: ['messages:send'], createdAt: clock.now(), revokedAt: null, expiresAt: null };
  }

  it('serves a kept key to a server until another process revokes it or sets its org’s plan', async () => {
    const path = join(dir, 'two-processes.sqlite');
    // Two stores on one file, each with its own cache and epoch handle: a server and the admin CLI.
    const server = openThreadedSqliteStore({ path });
    const cli = openThreadedSqliteStore({ path });
    try {
      const tenant = await new Fixtures(() => cli, clock).tenant();
      const key = keyOf(tenant);
      await cli.apiKeys.create(key, 'hash-k');
      const first = await server.apiKeys.findByHash('hash-k');
      // Kept: the same object again, not a copy from the reader thread.
      expect(await server.apiKeys.findByHash('hash-k')).toBe(first);

      await cli.orgs.setPlan(tenant.orgId, 'starter');
      expect((await server.apiKeys.findByHash('hash-k'))?.org.plan).toBe('starter');
      clock.advance(1_000);
      await cli.apiKeys.revoke(key.id, clock.now());
      expect((await server.apiKeys.findByHash('hash-k'))?.key.revokedAt).toBe(clock.now());
    } finally {
      await server.close();
      await cli.close();
    }
    expect(existsSync(`${path}-auth-epoch`)).toBe(true);
  });

  it('moves the epoch for every write that changes a lookup, and only the repos’ other methods leave it', () => {
    // A method added to either repo must be placed: it changes what findByHash returns (then
    // it belongs in AUTH_WRITES), or it does not.
    const leaves = { apiKeys: ['create', 'findByHash'], orgs: ['create', 'get'] };
    for (const repo of ['apiKeys', 'orgs'] as const) {
      const methods = Object.getOwnPropertyNames(SQLITE_REPOS[repo].prototype).filter((m) => m !== 'constructor');
      expect(methods.sort(), repo).toEqual([...leaves[repo], ...AUTH_WRITES[repo]!].sort());
    }
    expect(Object.keys(AUTH_WRITES).sort()).toEqual(['apiKeys', 'orgs']);
  });
});
