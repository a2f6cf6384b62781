// GET /v1/listen's key, checked again while the connection is open: a revoked or expired key
// (or one that lost endpoints:write) ends the connection with 1008, as it ends every other call
// — an open socket had kept receiving the tenant's signed webhooks. A real ListenServer on a
// loopback HTTP server, over a SQLite store, with the `ws` client the CLI uses.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashApiKey, ManualClock, newApiKey, newId, SCOPES, SecretBox, type Scope } from '@wirehook/core';
import { ListenHub } from '@wirehook/egress';
import { silentLogger } from '@wirehook/platform';
import { openSqliteStore, type SqliteStore } from '@wirehook/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { KEY_REVOKED_CLOSE, ListenServer } from './listen-server.ts';

let store: SqliteStore;
let server: Server;
let listen: ListenServer;
const clock = new ManualClock();

beforeEach(async () => {
  store = openSqliteStore({ path: ':memory:' });
  listen = new ListenServer({
    store,
    clock,
    logger: silentLogger(),
    secretBox: new SecretBox(Buffer.alloc(32, 7)),
    hub: new ListenHub({ clock, timeoutMs: 1_000 }),
    keyCheckMs: 50,
  });
  server = createServer();
  server.on('upgrade', listen.upgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  await listen.close();
  await new Promise((resolve) => server.close(resolve));
  await store.close();
});

/** A test-environment key of a new org, with `scopes`. */
async function key(scopes: readonly Scope[] = SCOPES, expiresAt: number | null = null) {
  const org = await store.orgs.create({ id: newId('org', clock), name: 'Acme', plan: 'starter', ownerEmail: null, createdAt: clock.now() });
  const secret = newApiKey('test');
  const record = await store.apiKeys.create(
    { id: newId('key', clock), orgId: org.id, env: 'test', scopes: [...scopes], createdAt: clock.now(), revokedAt: null, expiresAt },
    hashApiKey(secret),
  );
  return { id: record.id, secret };
}

/** A `listen` connection, once its ready frame came; @returns it and how it closed. */
async function connected(secret: string): Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
  const { port } = server.address() as AddressInfo;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/listen?forward_to=${encodeURIComponent('http://localhost:3000/hook')}`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    ws.once('message', () => resolve());
    ws.once('error', reject);
  });
  return { ws, closed };
}

describe('listen: the key of an open connection', () => {
  it('revoked: the connection is closed with 1008, saying why; a valid key’s stays open meanwhile', async () => {
    const revoked = await key();
    const kept = await key();
    const a = await connected(revoked.secret);
    const b = await connected(kept.secret);
    await store.apiKeys.revoke(revoked.id, clock.now());
    expect(await a.closed).toEqual({ code: KEY_REVOKED_CLOSE, reason: 'this API key was revoked or has expired' });
    expect(KEY_REVOKED_CLOSE).toBe(1008);
    expect(b.ws.readyState).toBe(WebSocket.OPEN);
    b.ws.close(1000);
    await b.closed;
  });

  it('expired (its expiry passed while connected): closed with 1008', async () => {
    const expiring = await key(SCOPES, clock.now() + 60_000);
    const a = await connected(expiring.secret);
    clock.advance(60_000);
    expect(await a.closed).toEqual({ code: KEY_REVOKED_CLOSE, reason: 'this API key was revoked or has expired' });
  });
});
