import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

/** A stream that keeps what is written; `isTTY` as a terminal would say. */
function capture(isTTY = false) {
  const stream = Object.assign(new PassThrough(), { isTTY });
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  return { stream, text: () => text };
}

describe('createLogger', () => {
  it('JSON off a terminal, every line naming its service and instance', () => {
    const out = capture(false);
    createLogger({ name: 'dispatcher', instance: 'dispatcher-2', destination: out.stream }).info({ deliveryId: 'dlv_1' }, 'attempt failed');
    const line = JSON.parse(out.text()) as Record<string, unknown>;
    expect(line).toMatchObject({ service: 'dispatcher', instance: 'dispatcher-2', deliveryId: 'dlv_1', msg: 'attempt failed', level: 30 });
  });

  it('on a terminal: one readable line per event, coloured; LOG_FORMAT=json keeps JSON there', () => {
    const out = capture(true);
    const logger = createLogger({ name: 'gateway', instance: 'gw-1', destination: out.stream });
    logger.child({ component: 'api' }).warn({ status: 503 }, 'intake slow');
    const text = out.text();
    expect(text.trim().split('\n')).toHaveLength(1);
    expect(text).toContain('\u001b['); // ANSI colour
    const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: gateway\/api: intake slow \{"status":503\}\n$/);

    const json = capture(true);
    createLogger({ name: 'gateway', format: 'json', destination: json.stream }).info('x');
    expect(JSON.parse(json.text())).toMatchObject({ service: 'gateway', msg: 'x' });
  });

  it('never writes an Authorization header or a payload', () => {
    const out = capture(false);
    createLogger({ name: 'gateway', destination: out.stream }).info({ headers: { authorization: 'Bearer sk_live_x' }, payload: { card: 1 } }, 'req');
    expect(out.text()).not.toContain('sk_live_x');
    expect(out.text()).not.toContain('card');
  });
});
