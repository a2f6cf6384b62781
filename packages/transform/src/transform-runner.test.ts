import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransformerUnavailableError, type OrgId, type TransformTurn } from '@wirehook/core';
import { TransformRunner } from './transform-runner.ts';
import type { TransformInput } from './transform-types.ts';

const NOW = Date.UTC(2026, 10, 30, 23, 59, 59, 999);
const input: TransformInput = {
  event_type: 'invoice.paid',
  payload: { invoice_id: 'in_1', amount_cents: 1250, customer: { id: 'cus_7', email: 'ada@example.com' } },
  headers: { 'x-source': 'billing' },
  url: 'https://hooks.example.com/in',
};

/** A send's turn: `org`'s live environment, `endpointId`. */
const send = (org: string, endpointId: string): TransformTurn => ({ tenant: { orgId: org as OrgId, env: 'live' }, endpointId, simulation: false });
/** A simulation's turn (the API's simulate route). */
const simulation = (org: string, endpointId: string): TransformTurn => ({ ...send(org, endpointId), simulation: true });
const IDENTITY = 'function handler(w) { return w }';

let runner: TransformRunner;
beforeAll(async () => {
  runner = new TransformRunner();
  // The thread starts on the first run: later timings do not include it.
  await runner.run('function handler(w) { return w }', input, NOW);
});
afterAll(() => runner.close());

describe('TransformRunner: what the code returns', () => {
  it('renames a field of the payload', async () => {
    const code = `function handler(webhook) {
      const { invoice_id, ...rest } = webhook.payload;
      webhook.payload = { ...rest, invoiceId: invoice_id };
      return webhook;
    }`;
    expect(await runner.run(code, input, NOW)).toEqual({
      ok: true,
      cancel: false,
      payload: { invoiceId: 'in_1', amount_cents: 1250, customer: { id: 'cus_7', email: 'ada@example.com' } },
      headers: { 'x-source': 'billing' },
      url: 'https://hooks.example.com/in',
    });
  });

  it('adds a header, keeping the others', async () => {
    const code = `function handler(webhook) { webhook.headers['x-tenant'] = webhook.payload.customer.id; return webhook; }`;
    const result = await runner.run(code, input, NOW);
    expect(result).toMatchObject({ ok: true, cancel: false, headers: { 'x-source': 'billing', 'x-tenant': 'cus_7' } });
  });

  it('changes the url (returned as is: the caller applies its URL rules)', async () => {
    const code = `function handler(webhook) { webhook.url = 'http://10.0.0.1/' + webhook.event_type; return webhook; }`;
    expect(await runner.run(code, input, NOW)).toMatchObject({ ok: true, url: 'http://10.0.0.1/invoice.paid' });
  });

  it('cancels', async () => {
    expect(await runner.run('function handler(webhook) { return { cancel: true } }', input, NOW)).toEqual({ ok: true, cancel: true });
    const notCancelled = await runner.run('function handler(webhook) { webhook.cancel = false; return webhook }', input, NOW);
    expect(notCancelled).toMatchObject({ ok: true, cancel: false, payload: input.payload });
  });

  it("keeps the input's headers and url when the code leaves them out", async () => {
    const result = await runner.run('function handler(webhook) { return { payload: [1, 2] } }', input, NOW);
    expect(result).toEqual({ ok: true, cancel: false, payload: [1, 2], headers: { 'x-source': 'billing' }, url: 'https://hooks.example.com/in' });
  });

  it('takes handler declared with let, const or class syntax, and null as a payload', async () => {
    expect(await runner.run('const handler = (w) => ({ ...w, payload: null });', input, NOW)).toMatchObject({ ok: true, payload: null });
  });

  it('normalises the payload as JSON.stringify does', async () => {
    const code = 'function handler(w) { return { payload: { a: undefined, b: NaN, c: new Date(0), d: [undefined] } } }';
    expect(await runner.run(code, input, NOW)).toMatchObject({ ok: true, payload: { b: null, c: '1970-01-01T00:00:00.000Z', d: [null] } });
  });
});

describe('TransformRunner: failures of the code are results', () => {
  it('an exception, with its line and column', async () => {
    const code = ['function handler(webhook) {', '  if (!webhook.payload.customer.vat) {', "    throw new Error('no VAT number');", '  }', '}'].join('\n');
    expect(await runner.run(code, input, NOW)).toEqual({ ok: false, error: 'transformation: Error: no VAT number (line 3, column 20)' });
  });

  it('a TypeError raised by the engine, with its position', async () => {
    const code = 'function handler(webhook) {\n  return webhook.payload.missing.field;\n}';
    expect(await runner.run(code, input, NOW)).toEqual({
      ok: false,
      error: "transformation: TypeError: cannot read property 'field' of undefined (line 2, column 33)",
    });
  });

  it('a syntax error, with its line and column', async () => {
    const code = 'function handler(webhook) {\n  return { payload: webhook.payload, };\n  let x = ;\n}';
    expect(await runner.run(code, input, NOW)).toEqual({
      ok: false,
      error: "transformation: SyntaxError: unexpected token in expression: ';' (line 3, column 11)",
    });
  });

  it('values thrown that are not errors', async () => {
    expect(await runner.run("function handler() { throw 'nope' }", input, NOW)).toEqual({ ok: false, error: 'transformation: threw "nope"' });
    expect(await runner.run('function handler() { throw { code: 7 } }', input, NOW)).toEqual({ ok: false, error: 'transformation: threw {"code":7}' });
  });

  it('a long message is cut at 500 characters', async () => {
    const result = await runner.run("function handler() { throw new Error('x'.repeat(100000)) }", input, NOW);
    expect(result).toEqual({ ok: false, error: `transformation: Error: ${'x'.repeat(493)}… (line 1, column 37)` });
  });

  it('no handler', async () => {
    expect(await runner.run('function transform(webhook) { return webhook }', input, NOW)).toEqual({
      ok: false,
      error: 'transformation: the code defines no function handler(webhook)',
    });
    expect(await runner.run('var handler = 42;', input, NOW)).toEqual({
      ok: false,
      error: 'transformation: handler is a number, not a function: define function handler(webhook)',
    });
  });

  it.each([
    ['42', 'handler(webhook) returned a number; it must return an object: the webhook, changed, or {cancel: true}'],
    ['null', 'handler(webhook) returned null; it must return an object: the webhook, changed, or {cancel: true}'],
    ['[webhook]', 'handler(webhook) returned an array; it must return an object: the webhook, changed, or {cancel: true}'],
    ['undefined', 'handler(webhook) returned undefined; it must return an object: the webhook, changed, or {cancel: true}'],
    ['{ cancel: "yes" }', 'cancel must be true or false; it is a string'],
    ['{ url: webhook.url }', 'the returned object has no payload: return the webhook with its payload, or {cancel: true}'],
    ['{ payload: 10n }', 'the returned payload is not JSON-serialisable (TypeError: Do not know how to serialize a BigInt)'],
    ['{ payload: (() => { const a = {}; a.self = a; return a })() }', 'the returned payload is not JSON-serialisable (TypeError: circular reference)'],
    ['{ payload: () => 1 }', 'the returned payload is a function, which JSON cannot represent'],
    ['{ payload: 1, headers: { "x-count": 1 } }', 'the returned header "x-count" must be a string; it is a number'],
    ['{ payload: 1, headers: [["x-a", "1"]] }', 'the returned headers must be an object of header names to strings; it is an array'],
    ['{ payload: 1, headers: null }', 'the returned headers must be an object of header names to strings; it is null'],
    ['{ payload: 1, url: 443 }', 'the returned url must be a string; it is a number'],
  ])('a return value of %s', async (returned, error) => {
    expect(await runner.run(`function handler(webhook) { return ${returned} }`, input, NOW)).toEqual({ ok: false, error: `transformation: ${error}` });
  });

  it('an async handler (transformations are synchronous)', async () => {
    expect(await runner.run('async function handler(webhook) { return webhook }', input, NOW)).toEqual({
      ok: false,
      error: 'transformation: handler(webhook) returned a Promise; transformations are synchronous (no async or await)',
    });
  });

  it('code over 32,768 bytes is refused; exactly 32,768 runs', async () => {
    const code = 'function handler(w) { return w }\n//';
    const exact = code + 'x'.repeat(32_768 - code.length);
    expect(Buffer.byteLength(exact)).toBe(32_768);
    expect(await runner.run(exact, input, NOW)).toMatchObject({ ok: true, cancel: false });
    expect(await runner.run(`${exact}x`, input, NOW)).toEqual({
      ok: false,
      error: 'transformation: the code must be at most 32,768 bytes (UTF-8); it is 32,769',
    });
  });
});

describe('TransformRunner: the sandbox', () => {
  it('has no require, process, fetch, timers or WebAssembly', async () => {
    const code = `function handler() {
      return { payload: [typeof require, typeof process, typeof globalThis.fetch, typeof setTimeout, typeof setInterval,
        typeof queueMicrotask, typeof XMLHttpRequest, typeof WebAssembly, typeof Buffer, typeof module, typeof os, typeof std] };
    }`;
    expect(await runner.run(code, input, NOW)).toMatchObject({ ok: true, payload: Array(12).fill('undefined') });
  });

  it("require('fs') fails as a ReferenceError at its position", async () => {
    const code = "function handler(webhook) {\n  const fs = require('fs');\n  return webhook;\n}";
    expect(await runner.run(code, input, NOW)).toEqual({ ok: false, error: "transformation: ReferenceError: 'require' is not defined (line 2, column 14)" });
  });

  it('import is a syntax error, and import() a promise never settled', async () => {
    expect(await runner.run("import fs from 'fs';\nfunction handler(w) { return w }", input, NOW)).toEqual({
      ok: false,
      error: "transformation: SyntaxError: expecting '(' (line 1, column 8)",
    });
    expect(await runner.run("function handler(w) { return import('fs') }", input, NOW)).toEqual({
      ok: false,
      error: 'transformation: handler(webhook) returned a Promise; transformations are synchronous (no async or await)',
    });
  });

  it('Date.now() and new Date() are the run’s now; dates with arguments are real', async () => {
    const code = `function handler() {
      return { payload: [Date.now(), new Date().getTime(), new Date().toISOString(), Date(), new Date(0).getTime(), new Date(2020, 0, 1).toISOString(),
        Date.UTC(2020, 0, 1), new Date() instanceof Date, new Date().constructor === Date] };
    }`;
    expect(await runner.run(code, input, NOW)).toMatchObject({
      ok: true,
      payload: [NOW, NOW, '2026-11-30T23:59:59.999Z', 'Mon Nov 30 2026 23:59:59 GMT+0000', 0, '2020-01-01T00:00:00.000Z', Date.UTC(2020, 0, 1), true, true],
    });
    // Top-level code sees the same clock.
    expect(await runner.run('const at = Date.now();\nfunction handler() { return { payload: at } }', input, 1_000)).toMatchObject({ payload: 1_000 });
  });

  it('Math.random is there (QuickJS seeds it per context)', async () => {
    const result = await runner.run('function handler() { return { payload: Math.random() } }', input, NOW);
    expect(result).toMatchObject({ ok: true });
    const value = (result as { payload: number }).payload;
    expect(value >= 0 && value < 1).toBe(true);
  });

  it('console exists and prints nothing', async () => {
    expect(await runner.run("function handler(w) { console.log('hi', w); console.error('e'); return w }", input, NOW)).toMatchObject({ ok: true });
  });
});

describe('TransformRunner: runs waiting for a thread take turns by tenant, then by endpoint', () => {
  it("a tenant queueing from 6 endpoints delays another tenant's run by one run, not one per endpoint; its endpoints take turns", async () => {
    // The shared runner has one thread: tenant A queues 2 runs from each of 6 endpoints, then tenant B queues 1.
    const done: string[] = [];
    const tag = (code: string, turn: TransformTurn, name: string) => runner.run(code, input, NOW, turn).then(() => done.push(name));
    const spin = 'function handler(w) { let n = 0; for (let i = 0; i < 2e5; i++) n += i; return w }';
    const runs: Promise<unknown>[] = [];
    for (let endpoint = 0; endpoint < 6; endpoint++) {
      for (let nth = 0; nth < 2; nth++) runs.push(tag(spin, send('org_a', `ep_a${endpoint}`), `a${endpoint}.${nth}`));
    }
    runs.push(tag(IDENTITY, send('org_b', 'ep_b'), 'b'));
    await Promise.all(runs);
    // a0.0 took the idle thread; B, beginning to wait, went before A (served last): by endpoint B would wait for 6 more, by
    // tenant alone (appended behind A) for a0.1 too.
    expect(done.indexOf('b')).toBe(1);
    // Within A, endpoint by endpoint: each endpoint's first run before any endpoint's second.
    expect(done.filter((name) => name !== 'b')).toEqual(['a0.0', 'a0.1', 'a1.0', 'a2.0', 'a3.0', 'a4.0', 'a5.0', 'a1.1', 'a2.1', 'a3.1', 'a4.1', 'a5.1']);
  });

  it("an organisation's environments are two tenants", async () => {
    const done: string[] = [];
    const tag = (turn: TransformTurn, name: string) => runner.run(IDENTITY, input, NOW, turn).then(() => done.push(name));
    const live = (endpointId: string) => send('org_a', endpointId);
    const test: TransformTurn = { tenant: { orgId: 'org_a' as OrgId, env: 'test' }, endpointId: 'ep_t', simulation: false };
    await Promise.all([tag(live('ep_1'), 'live1'), tag(live('ep_2'), 'live2'), tag(live('ep_3'), 'live3'), tag(test, 'test')]);
    // Test is a tenant of its own: beginning to wait, it goes before live (served last), not after live's whole queue.
    expect(done).toEqual(['live1', 'test', 'live2', 'live3']);
  });

  it("a tenant beginning to wait goes before the tenant given a thread last: it waits for that one's run in flight, not its next too", async () => {
    const guarded = new TransformRunner({ watchdogGraceMs: 100 });
    try {
      await guarded.run(IDENTITY, input, NOW);
      const done: string[] = [];
      const tag = (code: string, turn: TransformTurn, name: string) => guarded.run(code, input, NOW, turn).then(() => done.push(name));
      // A naive substring search in C that never polls the interrupt: the watchdog ends its thread (~300 ms and a new one's start).
      const search = "function handler(w) { 'a'.repeat(300000).indexOf('a'.repeat(100000) + 'b'); return w }";
      // A's second run queued before B's: appended behind A, B would have waited for both of A's.
      await Promise.all([tag(search, send('org_a', 'ep_a1'), 'a1'), tag(IDENTITY, send('org_a', 'ep_a2'), 'a2'), tag(IDENTITY, send('org_b', 'ep_b'), 'b')]);
      expect(done).toEqual(['a1', 'b', 'a2']);
      // The same for a run that fails by its budget within the sandbox, and with a third tenant already waiting: it keeps its
      // place before the newcomer (C waited before B began), both before A's next.
      done.length = 0;
      const spin = 'function handler(w) { while (true) {} }';
      await Promise.all([
        tag(spin, send('org_a', 'ep_a1'), 'a1'),
        tag(IDENTITY, send('org_c', 'ep_c'), 'c'),
        tag(IDENTITY, send('org_a', 'ep_a2'), 'a2'),
        tag(IDENTITY, send('org_b', 'ep_b'), 'b'),
      ]);
      expect(done).toEqual(['a1', 'c', 'b', 'a2']);
    } finally {
      await guarded.close();
    }
  });
});

describe('TransformRunner: simulations are one at a time per tenant and never count against sends', () => {
  const ONE_SIMULATION_AT_A_TIME = new TransformerUnavailableError("this tenant's previous simulation is still running (one at a time)");

  it("a tenant's second simulation, in flight or waiting, is refused at once; its first, another tenant's and its sends are not", async () => {
    const bounded = new TransformRunner({ maxWaiting: 1, maxWaitingPerEndpoint: 1 });
    try {
      await bounded.run(IDENTITY, input, NOW);
      // In flight: A's simulation holds the only thread; a second of A's (any endpoint) is refused.
      const inFlight = bounded.run(IDENTITY, input, NOW, simulation('org_a', 'ep_a1'));
      await expect(bounded.run(IDENTITY, input, NOW, simulation('org_a', 'ep_a2'))).rejects.toThrow(ONE_SIMULATION_AT_A_TIME);
      // Waiting: B's first simulation waits; a second of B's is refused.
      const waiting = bounded.run(IDENTITY, input, NOW, simulation('org_b', 'ep_b'));
      await expect(bounded.run(IDENTITY, input, NOW, simulation('org_b', 'ep_b'))).rejects.toThrow(ONE_SIMULATION_AT_A_TIME);
      // Two simulations wait and maxWaiting is 1: a send still gets the one waiting place, a second send does not.
      const sendWaiting = bounded.run(IDENTITY, input, NOW, send('org_a', 'ep_a1'));
      await expect(bounded.run(IDENTITY, input, NOW, send('org_c', 'ep_c'))).rejects.toThrow(
        /every sandbox thread is busy \(0 runs of this endpoint waiting, 0 of its tenant, 1 in all\)/,
      );
      // With the sends' waiting place taken, another tenant's simulation still waits for its turn.
      const lateSimulation = bounded.run(IDENTITY, input, NOW, simulation('org_d', 'ep_d'));
      expect(await Promise.all([inFlight, waiting, sendWaiting, lateSimulation])).toEqual(Array(4).fill(expect.objectContaining({ ok: true })));
      // Both done: each tenant's next simulation runs.
      expect(await bounded.run(IDENTITY, input, NOW, simulation('org_a', 'ep_a2'))).toMatchObject({ ok: true });
      expect(await bounded.run(IDENTITY, input, NOW, simulation('org_b', 'ep_b'))).toMatchObject({ ok: true });
    } finally {
      await bounded.close();
    }
  });
});

describe('TransformRunner: a large payload and a poisoned prototype', () => {
  it('passes a payload of 1,000,000 bytes through unchanged: reading it in and out has its own allowance beside the 50 ms', async () => {
    // The largest payload the API takes (MAX_PAYLOAD_BYTES), as JSON text: one long string and many small fields.
    const fields = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`f${i}`, i]));
    const filler = 'x'.repeat(1_000_000 - JSON.stringify({ fields, text: '' }).length);
    const payload = { fields, text: filler };
    expect(JSON.stringify(payload).length).toBe(1_000_000);
    const result = await runner.run('function handler(w) { return w }', { ...input, payload }, NOW);
    expect(result).toMatchObject({ ok: true, cancel: false });
    expect(result.ok && !result.cancel && JSON.stringify(result.payload).length).toBe(1_000_000);
  });

  it('code that sets Object.prototype.toJSON and throws fails that run, in words; the thread runs the next', async () => {
    const poisoned = await runner.run("Object.prototype.toJSON = () => undefined;\nfunction handler() { throw new Error('x') }", input, NOW);
    expect(poisoned).toMatchObject({ ok: false, error: expect.stringMatching(/^transformation: /) });
    expect(await runner.run('function handler(w) { return w }', input, NOW)).toMatchObject({ ok: true });
  });
});

describe('TransformRunner: the wait for a thread is bounded', () => {
  it('refuses a run past maxWaitingPerEndpoint waiting, or past maxWaitMs, as unavailable (not a failure of the code)', async () => {
    const bounded = new TransformRunner({ maxWaitMs: 200, maxWaitingPerEndpoint: 2 });
    try {
      const spin = 'function handler(w) { while (true) {} }';
      // One run holds the thread (50 ms of CPU), two wait for it; a third of the same endpoint is refused at once.
      const runs = [
        bounded.run(spin, input, NOW, send('org_a', 'ep_a')),
        bounded.run(spin, input, NOW, send('org_a', 'ep_a')),
        bounded.run(spin, input, NOW, send('org_a', 'ep_a')),
      ];
      await expect(bounded.run(spin, input, NOW, send('org_a', 'ep_a'))).rejects.toBeInstanceOf(TransformerUnavailableError);
      // Another endpoint still gets its place in line.
      const other = bounded.run('function handler(w) { return w }', input, NOW, send('org_a', 'ep_b'));
      const settled = await Promise.allSettled([...runs, other]);
      // Each either ran (its budget's failure, or ok) or was refused for its wait: never anything else.
      for (const s of settled) {
        if (s.status === 'rejected') expect(s.reason).toBeInstanceOf(TransformerUnavailableError);
        else expect(s.value.ok ? 'ok' : s.value.error).toMatch(/^ok$|^transformation: ran longer than/);
      }
    } finally {
      await bounded.close();
    }
    await expect(bounded.run('function handler(w) { return w }', input, NOW)).rejects.toBeInstanceOf(TransformerUnavailableError);
  });
});

describe('TransformRunner: a tenant’s sends waiting are bounded apart from the others’', () => {
  it('with maxWaitingPerTenant 2, its third send waiting (from a third endpoint) is refused; another tenant’s is not', async () => {
    const bounded = new TransformRunner({ maxWaitingPerTenant: 2, maxWaiting: 4 });
    try {
      await bounded.run(IDENTITY, input, NOW);
      const inFlight = bounded.run(IDENTITY, input, NOW, send('org_a', 'ep_a1'));
      // Two of A's wait: the tenant's limit, from two endpoints.
      const waiting = [bounded.run(IDENTITY, input, NOW, send('org_a', 'ep_a2')), bounded.run(IDENTITY, input, NOW, send('org_a', 'ep_a3'))];
      await expect(bounded.run(IDENTITY, input, NOW, send('org_a', 'ep_a4'))).rejects.toThrow(
        new TransformerUnavailableError('every sandbox thread is busy (0 runs of this endpoint waiting, 2 of its tenant, 2 in all)'),
      );
      // Two places are left in all: B's send takes one.
      const other = bounded.run(IDENTITY, input, NOW, send('org_b', 'ep_b'));
      // Once A's first waiting send is done (its second still waiting, B's run next), A may queue another.
      const next = waiting[0]!.then(() => bounded.run(IDENTITY, input, NOW, send('org_a', 'ep_a4')));
      expect(await Promise.all([inFlight, ...waiting, other, next])).toEqual(Array(5).fill(expect.objectContaining({ ok: true })));
    } finally {
      await bounded.close();
    }
  });
});

describe('TransformRunner: the sandbox’s local time is UTC', () => {
  it('at a month’s last UTC half hour, whatever the host’s zone: getMonth, getDate, components and getTimezoneOffset', async () => {
    const endOfJanuary = Date.UTC(2026, 0, 31, 23, 30);
    const code = `function handler(w) {
      const d = new Date();
      w.payload = { month: d.getMonth(), date: d.getDate(), hours: d.getHours(), offset: d.getTimezoneOffset(),
        made: new Date(2026, 1, 1).toISOString(), text: Date(), day: d.toDateString() };
      return w;
    }`;
    const result = await runner.run(code, input, endOfJanuary);
    expect(result).toMatchObject({
      ok: true,
      payload: { month: 0, date: 31, hours: 23, offset: 0, made: '2026-02-01T00:00:00.000Z', text: 'Sat Jan 31 2026 23:30:00 GMT+0000', day: '2026-01-31' },
    });
  });
});
