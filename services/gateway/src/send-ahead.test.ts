// POST /v1/messages served ahead of Express's router (sendAhead) answers as the router did: the
// gateway with it and without it (routedGateway), over one SQLite store, given the same raw
// requests, send the same status, headers and body, record the same span name and attributes,
// log the same lines and count the same metric labels — for a 202 and every refusal and fault
// on the way; and the router is not entered for it, while every other request still goes there.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { type Express } from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runAdminCommand } from '@wirehook/admin';
import { newId, systemClock } from '@wirehook/core';
import type { PublicApiDeps } from '@wirehook/http-api';
import type { HttpMetrics } from '@wirehook/platform';
import { openEmbeddedStore, type Store } from '@wirehook/store';
import { eventually, jsonLines, recordSpans, type SpanRecorder } from '@wirehook/testkit';
import { createGateway, routedGateway } from './create-gateway.ts';
import { gatewayTestDeps } from './testing/gateway-deps.ts';

/** What the intake stand-in does with the next sends. */
let intakeDoes: 'accept' | 'fail' = 'accept';
const intake = {
  async send() {
    if (intakeDoes === 'fail') throw new Error('intake unreachable');
    return { id: newId('message', systemClock), deliveries: 1, usageMonth: 7, replayed: false };
  },
} as unknown as PublicApiDeps['intake'];

interface Side {
  port: number;
  lines: Record<string, unknown>[];
  metrics: HttpMetrics;
  server: Server;
}

let dataDir: string;
let store: Store;
let recorder: SpanRecorder;
let keys: { send: string; readOnly: string };
let ahead: Side;
let routed: Side;

async function serve(make: (deps: PublicApiDeps) => Express): Promise<Side> {
  const { destination, lines } = jsonLines();
  const deps = gatewayTestDeps(store, intake, destination);
  const app = make(deps);
  const metrics = deps.metrics;
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return { port: (server.address() as AddressInfo).port, lines, metrics, server };
}

beforeAll(async () => {
  recorder = await recordSpans('send-ahead');
  dataDir = mkdtempSync(join(tmpdir(), 'wirehook-send-ahead-'));
  store = openEmbeddedStore(dataDir);
  const org = await runAdminCommand(['org', 'create', '--name', 'Ahead', '--plan', 'business'], { store, clock: systemClock });
  const keyOf = async (...scopes: string[]) =>
    String((await runAdminCommand(['key', 'create', '--org', String(org['id']), '--env', 'live', ...scopes], { store, clock: systemClock }))['key']);
  keys = { send: await keyOf(), readOnly: await keyOf('--scopes', 'logs:read') };
  ahead = await serve(createGateway);
  routed = await serve((deps) => routedGateway(deps).app);
});

afterAll(async () => {
  for (const side of [ahead, routed]) await new Promise((resolve) => side?.server.close(resolve));
  await store?.close();
  await recorder?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Exactly these bytes on a connection of their own; what came back until the server closed it. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (chunk) => (got += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(got));
    // Not end(): a client half-closing before its answer has the server drop the connection.
    socket.write(request);
  });
}

const BODY = JSON.stringify({ consumer: 'cus_ahead', event_type: 'invoice.paid', payload: { n: 1 } });
function request(target: string, body = BODY, headers: Record<string, string> = {}, method = 'POST'): string {
  const all: Record<string, string> = {
    host: 'gateway.test',
    authorization: `Bearer ${keys.send}`,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    ...headers,
  };
  const lines = Object.entries(all).filter(([, value]) => value !== '');
  return `${method} ${target} HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body}`;
}

/** What one side answered and recorded for `text`, with what differs by nature (ids, times) taken out. */
async function observe(side: Side, text: string) {
  recorder.reset();
  side.lines.length = 0;
  const counted = async () => (await side.metrics.requests.get()).values.map((v) => `${JSON.stringify(v.labels)}=${v.value}`);
  const before = new Set(await counted());
  const response = (await raw(side.port, text)).replace(/^(date|x-request-id|x-ratelimit-reset): .*\r\n/gim, '').replace(/msg_[0-9A-Za-z]{26}/g, 'msg_…');
  // The span ends as the response closes; the request's log line as it finishes.
  await eventually(() => expect(recorder.spans().length).toBeGreaterThan(0));
  await eventually(() => expect(side.lines.some((l) => l['msg'] === 'request')).toBe(true));
  const spans = recorder.spans().map((s) => ({ name: s.name, attributes: { ...s.attributes, 'client.address': undefined } }));
  const logs = side.lines.map((l) => ({ level: l['level'], msg: l['msg'], route: l['route'], status: l['status'], path: l['path'], method: l['method'] }));
  const labels = (await counted()).filter((v) => !before.has(v));
  return { response, spans, logs, labels };
}

describe('POST /v1/messages ahead of the router', () => {
  const cases: [string, () => string][] = [
    ['202', () => request('/v1/messages')],
    ['202 with a query string', () => request('/v1/messages?x=1')],
    ['401 without a key', () => request('/v1/messages', BODY, { authorization: '' })],
    ['403 without the scope', () => request('/v1/messages', BODY, { authorization: `Bearer ${keys.readOnly}` })],
    ['422 malformed JSON', () => request('/v1/messages', '{bad')],
    ['422 a body the schema refuses', () => request('/v1/messages', '{}')],
    ['422 a body not in UTF-8', () => request('/v1/messages', BODY, { 'content-type': 'application/json; charset=utf-16' })],
    ['413 over 1.1 MB', () => request('/v1/messages', 'x'.repeat(1_200_000))],
    ['422 an idempotency key too long', () => request('/v1/messages', BODY, { 'idempotency-key': 'k'.repeat(300) })],
    ['the router: another spelling', () => request('/V1/Messages')],
    ['the router: OPTIONS', () => request('/v1/messages', '', {}, 'OPTIONS')],
  ];
  for (const [name, text] of cases) {
    it(`answers and records as the router does: ${name}`, async () => {
      const expected = await observe(routed, text());
      expect(await observe(ahead, text())).toEqual(expected);
    });
  }

  it('answers and records as the router does: 500 when the intake fails', async () => {
    intakeDoes = 'fail';
    try {
      const expected = await observe(routed, request('/v1/messages'));
      expect(expected.response).toMatch(/^HTTP\/1.1 500 /);
      expect(await observe(ahead, request('/v1/messages'))).toEqual(expected);
    } finally {
      intakeDoes = 'accept';
    }
  });

  it('names a span by the route its path falls under, an answer of ours or a refusal, on either way; a path of no route by its method', async () => {
    const names = async (side: Side, text: string) => (await observe(side, text)).spans.map((span) => span.name);
    for (const side of [ahead, routed]) {
      expect(await names(side, request('/v1/messages'))).toEqual(['POST /v1/messages']);
      expect(await names(side, request('/v1/messages', '{}'))).toEqual(['POST /v1/messages']);
      expect(await names(side, request('/v1/messages', BODY, { authorization: '' }))).toEqual(['POST /v1/messages']);
    }
    expect(await names(routed, request('/v1/endpoints', '{}'))).toEqual(['POST /v1/endpoints']);
    expect(await names(routed, request('/v1/endpoints/ep_unknown', '', {}, 'GET'))).toEqual(['GET /v1/endpoints/:id']);
    expect(await names(routed, request('/V1/Messages'))).toEqual(['POST']);
  });

  it('records a client gone mid-body as the router does: aborted, with no status, since none was sent', async () => {
    const spanOf = async (side: Side) => {
      recorder.reset();
      const socket = connect(side.port, '127.0.0.1');
      socket.write(request('/v1/messages', BODY, { 'content-length': '1000' }));
      setTimeout(() => socket.destroy(), 100);
      await eventually(() => expect(recorder.spans().length).toBe(1));
      const [span] = recorder.spans();
      return { name: span!.name, attributes: { ...span!.attributes, 'client.address': undefined } };
    };
    const expected = await spanOf(routed);
    expect(expected.attributes).toMatchObject({ 'error.type': 'aborted' });
    expect(expected.attributes).not.toHaveProperty('http.response.status_code');
    expect(await spanOf(ahead)).toEqual(expected);
  });

  it('enters no router for POST /v1/messages, and the router for every other request', async () => {
    const handle = vi.spyOn(express.Router.prototype, 'handle');
    try {
      const gateway = await serve(createGateway);
      expect(await raw(gateway.port, request('/v1/messages'))).toMatch(/^HTTP\/1.1 202 /);
      expect(handle).not.toHaveBeenCalled();
      expect(await raw(gateway.port, request('/v1/messages', '', {}, 'GET'))).toMatch(/^HTTP\/1.1 200 /);
      expect(handle).toHaveBeenCalled();
      await new Promise((resolve) => gateway.server.close(resolve));
    } finally {
      handle.mockRestore();
    }
  });
});
