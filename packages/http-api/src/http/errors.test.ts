// The one place errors become responses, and what it logs: a fault with its stack at error, a
// 503's "try again" as one line at warn (a client repeating a refused call must not fill the error
// log with stacks), nothing for what the caller got wrong.
import { InvalidError, UnavailableError } from '@wirehook/core';
import type { Logger } from '@wirehook/platform';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { errorHandler } from './errors.ts';

function answer(err: unknown, sent?: { ended: boolean }, clientGone = false) {
  const logged: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => void logged.push({ level, fields, msg });
  const logger = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } as unknown as Logger;
  let status = 0;
  let destroyed = false;
  const res = {
    headersSent: sent !== undefined,
    writableEnded: sent?.ended ?? false,
    destroy: () => void (destroyed = true),
    set: () => res,
    status: (s: number) => ((status = s), res),
    json: () => res,
  } as unknown as Response;
  const req = { method: 'POST', path: '/v1/endpoints/ep_1/transformation/simulate', socket: { destroyed: clientGone } } as unknown as Request;
  errorHandler(logger)(err, req, res, () => {});
  return { status, logged, destroyed };
}

describe('errorHandler', () => {
  it('a 503 refusal is one warn line with its words and no stack; a 503 wrapping a fault and a fault are errors with it; a 422 logs nothing', () => {
    const refused = answer(new UnavailableError("transformation: this tenant's previous simulation is still running (one at a time); try again shortly"));
    expect(refused.status).toBe(503);
    expect(refused.logged).toEqual([
      {
        level: 'warn',
        msg: 'request refused: unavailable',
        fields: {
          method: 'POST',
          path: '/v1/endpoints/ep_1/transformation/simulate',
          error: "transformation: this tenant's previous simulation is still running (one at a time); try again shortly",
        },
      },
    ]);
    // A 503 wrapping a fault (a failover, a service unreachable) keeps it, at error: its cause is the diagnosis.
    const outage = answer(new UnavailableError('the database is failing over or cannot be reached', { cause: new Error('connect ECONNREFUSED db-0') }));
    expect(outage.status).toBe(503);
    expect(outage.logged.map((l) => [l.level, l.msg, ((l.fields['err'] as Error).cause as Error).message])).toEqual([
      ['error', 'request failed', 'connect ECONNREFUSED db-0'],
    ]);
    const fault = answer(new Error('the disk is on fire'));
    expect(fault.status).toBe(500);
    expect(fault.logged.map((l) => [l.level, l.msg, (l.fields['err'] as Error).message])).toEqual([['error', 'request failed', 'the disk is on fire']]);
    expect(answer(new InvalidError('url: must use https')).logged).toEqual([]);
  });

  it('an error after the response was sent leaves its status alone (its log line and metrics say what was sent), and ends a response cut short', () => {
    const late = answer(new Error('after the 202'), { ended: true });
    expect([late.status, late.destroyed]).toEqual([0, false]);
    expect(late.logged.map((l) => [l.level, l.msg])).toEqual([['error', 'request failed after its response was sent']]);
    expect(answer(new Error('mid-body'), { ended: false }).destroyed).toBe(true);
  });

  it('a client gone before its answer (its body cut short, its connection reset) gets none; logged as any answer is', () => {
    const refused = answer(new InvalidError('request body is not valid JSON'), undefined, true);
    expect([refused.status, refused.logged]).toEqual([0, []]);
    // body-parser's error for a body cut short: no fault of ours (it had been logged as one, with its stack).
    const cut = answer(Object.assign(new Error('request aborted'), { type: 'request.aborted', status: 400 }), undefined, true);
    expect([cut.status, cut.logged]).toEqual([0, []]);
    const fault = answer(new Error('intake down late'), undefined, true);
    expect(fault.status).toBe(0);
    expect(fault.logged.map((l) => [l.level, l.msg, (l.fields['err'] as Error).message])).toEqual([['error', 'request failed', 'intake down late']]);
  });
});
