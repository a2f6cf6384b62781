// OAuthTokens: one token request per token lifetime for every dispatcher sharing the store, one
// new token for a 401 however many deliveries got it, failures held briefly, and a shared store
// that cannot be reached costing sharing only.
import { ManualClock, SecretBox, type EndpointAuth } from '@wirehook/core';
import type { SendResult } from '@wirehook/egress';
import { type Kv, MemoryKv } from '@wirehook/kv';
import { silentLogger } from '@wirehook/platform';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { credentialsKey, FAILURE_HOLD_MS, OAuthTokens } from './oauth-tokens.ts';
import { tokenResult } from './testing/dispatch-scene.ts';

const box = new SecretBox(Buffer.alloc(32, 7));
const EP = 'ep_1';
const auth = (over: Partial<EndpointAuth> = {}): EndpointAuth => ({
  type: 'oauth2_client_credentials',
  tokenUrl: 'https://auth.acme.example/token',
  clientId: 'wirehook',
  sealedSecret: 'v1.sealed',
  scope: null,
  audience: null,
  tokenAuthMethod: 'client_secret_basic',
  ...over,
});

let clock: ManualClock;
let kv: MemoryKv;
let fetches: number;
let answer: () => SendResult;
const fetch = async (): Promise<SendResult> => {
  fetches++;
  // A token endpoint that takes a moment: concurrent callers overlap with the fetch.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return answer();
};
let monotonic = 0;
const tokens = (store: Kv = kv) =>
  new OAuthTokens({ kv: store, secretBox: box, clock, logger: silentLogger(), fetchTimeoutMs: 1_000, monotonic: () => monotonic });

beforeEach(() => {
  clock = new ManualClock(1_700_000_000_000);
  kv = new MemoryKv({ clock });
  fetches = 0;
  answer = () => tokenResult(`token-${fetches}`, 3_600);
});

describe('OAuthTokens', () => {
  it('200 deliveries at once on two dispatchers sharing the store cause one token request; all send its token', async () => {
    const [a, b] = [tokens(), tokens()];
    const got = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).token(EP, auth(), fetch)));
    expect(fetches).toBe(1);
    expect(new Set(got.map((g) => ('token' in g ? g.token : g.error)))).toEqual(new Set(['token-1']));
  });

  it('stopped, a look-up waiting for another dispatcher’s token ends at its next poll (not at the lock’s end, 12 s here), fetching nothing', async () => {
    const [a, b] = [tokens(), tokens()];
    let answerA: (result: SendResult) => void = () => {};
    const slow = (): Promise<SendResult> => {
      fetches++;
      return new Promise((resolve) => (answerA = resolve));
    };
    const fetchingA = a.token(EP, auth(), slow);
    await vi.waitFor(() => expect(fetches).toBe(1));
    const lockKey = `oauth:fetch:${EP}:${credentialsKey(auth())}`;
    const reads = vi.spyOn(kv, 'get');
    const waitingB = b.token(EP, auth(), fetch);
    // B is polling A's lock (every 50 ms) when it is stopped.
    await vi.waitFor(() => expect(reads.mock.calls.some(([key]) => key === lockKey)).toBe(true));
    b.stop();
    expect(await waitingB).toEqual({ error: 'auth: the dispatcher stopped before its token came', durationMs: expect.any(Number) });
    expect(fetches).toBe(1);
    // A stopped with its fetch under way: settled() waits for it, so its token is kept and its lock let go.
    a.stop();
    let settled = false;
    const settling = a.settled().then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false); // the fetch has not answered
    answerA(tokenResult('token-a', 3_600));
    await settling;
    expect(await fetchingA).toMatchObject({ token: 'token-a' });
    expect(await kv.get(lockKey)).toBeNull();
    expect(await tokens().token(EP, auth(), fetch)).toMatchObject({ token: 'token-a' });
    // Stopped, it asks for no token any more.
    expect(await a.token('ep_2', auth(), fetch)).toMatchObject({ error: 'auth: the dispatcher stopped before its token came' });
    expect(fetches).toBe(1);
  });

  it('uses a token until 60 s before expires_in (3,600 s: until 3,540 s), then fetches the next', async () => {
    const t = tokens();
    expect(await t.token(EP, auth(), fetch)).toMatchObject({ token: 'token-1' });
    clock.advance(3_539_000);
    expect(await t.token(EP, auth(), fetch)).toMatchObject({ token: 'token-1' });
    // Another dispatcher finds it in the shared store: no request of its own.
    expect(await tokens().token(EP, auth(), fetch)).toMatchObject({ token: 'token-1' });
    clock.advance(1_001);
    expect(await t.token(EP, auth(), fetch)).toMatchObject({ token: 'token-2' });
    expect(fetches).toBe(2);
  });

  it('a 401 for a token under 30 s old fetches nothing (the receiver refuses fresh tokens): the refused one comes back', async () => {
    const t = tokens();
    await t.token(EP, auth(), fetch);
    clock.advance(29_999);
    expect(await t.refresh(EP, auth(), fetch, 'token-1')).toMatchObject({ token: 'token-1' });
    expect(await tokens().refresh(EP, auth(), fetch, 'token-1')).toMatchObject({ token: 'token-1' });
    expect(fetches).toBe(1);
    clock.advance(1);
    expect(await t.refresh(EP, auth(), fetch, 'token-1')).toMatchObject({ token: 'token-2' });
    expect(fetches).toBe(2);
  });

  it('a 401: a dispatcher that read the shared token just before another stored the new one and unlocked takes that one, no fetch of its own', async () => {
    const a = tokens();
    await a.token(EP, auth(), fetch);
    clock.advance(30_000);
    expect(await a.refresh(EP, auth(), fetch, 'token-1')).toMatchObject({ token: 'token-2' });
    // B's first read of the shared token lands between A's delete of token-1 and its write of
    // token-2 (it sees none); by B's lock, A has stored token-2 and unlocked.
    let stale = true;
    const lagging: Kv = Object.assign(Object.create(kv) as MemoryKv, {
      get: async (key: string) => {
        if (stale && key.startsWith('oauth:token:')) {
          stale = false;
          return null;
        }
        return kv.get(key);
      },
    });
    expect(await tokens(lagging).refresh(EP, auth(), fetch, 'token-1')).toMatchObject({ token: 'token-2' });
    expect(fetches).toBe(2);
    expect(await kv.get(`oauth:fetch:${EP}:${credentialsKey(auth())}`)).toBeNull(); // B let its lock go
  });

  it('a 401 on many deliveries of two dispatchers fetches one new token; a later refresh of the old one fetches nothing', async () => {
    const [a, b] = [tokens(), tokens()];
    await a.token(EP, auth(), fetch);
    await b.token(EP, auth(), fetch);
    expect(fetches).toBe(1);
    clock.advance(30_000);
    const renewed = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).refresh(EP, auth(), fetch, 'token-1')));
    expect(fetches).toBe(2);
    expect(new Set(renewed.map((r) => ('token' in r ? r.token : r.error)))).toEqual(new Set(['token-2']));
    // A delivery whose 401 arrives late refreshes a token already replaced: it gets the new one.
    expect(await tokens().refresh(EP, auth(), fetch, 'token-1')).toMatchObject({ token: 'token-2' });
    expect(await a.token(EP, auth(), fetch)).toMatchObject({ token: 'token-2' });
    expect(fetches).toBe(2);
  });

  it('a refused token request is an auth error with its status and body, held 5 s (no request meanwhile), then asked again', async () => {
    answer = () => ({ ok: false, status: 401, responseHead: '{"error":"invalid_client"}', error: 'http_status: 401', durationMs: 3, sourceIp: null });
    const t = tokens();
    const refused = { error: 'auth: token endpoint answered 401: {"error":"invalid_client"}' };
    expect(await t.token(EP, auth(), fetch)).toMatchObject(refused);
    // Held by monotonic time: the clock stepping back an hour changes nothing.
    clock.advance(-3_600_000);
    monotonic += FAILURE_HOLD_MS - 1;
    expect(await t.token(EP, auth(), fetch)).toMatchObject(refused);
    expect(fetches).toBe(1);
    monotonic += 1;
    answer = () => tokenResult('token-ok', 3_600);
    expect(await t.token(EP, auth(), fetch)).toMatchObject({ token: 'token-ok' });
    expect(fetches).toBe(2);
  });

  it('an unreachable token endpoint is an auth error naming the connection failure', async () => {
    answer = () => ({ ok: false, status: null, responseHead: null, error: 'connection: ECONNREFUSED', durationMs: 1, sourceIp: null });
    expect(await tokens().token(EP, auth(), fetch)).toMatchObject({ error: 'auth: token endpoint unreachable (connection: ECONNREFUSED)' });
  });

  it('changed credentials (secret, scope, token URL) never use a token fetched with the old ones', async () => {
    const t = tokens();
    await t.token(EP, auth(), fetch);
    expect(await t.token(EP, auth({ sealedSecret: 'v1.rotated' }), fetch)).toMatchObject({ token: 'token-2' });
    expect(await t.token(EP, auth({ sealedSecret: 'v1.rotated', scope: 'hooks' }), fetch)).toMatchObject({ token: 'token-3' });
    expect(await t.token(EP, auth({ sealedSecret: 'v1.rotated', scope: 'hooks', tokenUrl: 'https://other.example/token' }), fetch)).toMatchObject({
      token: 'token-4',
    });
    // Another endpoint with the same credentials has tokens of its own.
    expect(await t.token('ep_2', auth(), fetch)).toMatchObject({ token: 'token-5' });
  });

  it('keeps the token sealed in the shared store (bound to its endpoint), never in the clear, for as long as it is used', async () => {
    const sets: { value: string; ttl: number }[] = [];
    const recording: Kv = new Proxy(kv, {
      get: (target, name) =>
        name === 'set'
          ? (key: string, value: string, ttl: number) => {
              sets.push({ value, ttl });
              return target.set(key, value, ttl);
            }
          : Reflect.get(target, name, target).bind(target),
    });
    await tokens(recording).token(EP, auth(), fetch);
    expect(sets).toHaveLength(1);
    expect(sets[0]!.value).not.toContain('token-1');
    expect(JSON.parse(box.open(sets[0]!.value, EP))).toEqual({ token: 'token-1', usableUntil: clock.now() + 3_540_000, fetchedAt: clock.now() });
    expect(sets[0]!.ttl).toBe(3_540_000);
    expect(() => box.open(sets[0]!.value, 'ep_other')).toThrow();
  });

  it('a shared store that cannot be reached still gives tokens (each process fetching its own), and keeps them in memory', async () => {
    const down: Kv = new Proxy(kv, { get: () => () => Promise.reject(new Error('redis down')) });
    const t = tokens(down);
    expect(await t.token(EP, auth(), fetch)).toMatchObject({ token: 'token-1' });
    expect(await t.token(EP, auth(), fetch)).toMatchObject({ token: 'token-1' });
    expect(fetches).toBe(1);
  });
});
