import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { afterWritten } from './after-written.ts';
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

  it('pretty lines wait in the destination itself, so a process that ends once it has written them loses none to a slow reader', async () => {
    // A reader slower than the logger (a terminal, the cluster launcher's pipe): 1 KB buffered, each write taking a turn.
    const lines: string[] = [];
    const slow = Object.assign(
      new Writable({
        highWaterMark: 1_024,
        write(chunk: Buffer, _encoding, done) {
          lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
          setImmediate(done);
        },
      }),
      { isTTY: false },
    );
    const logger = createLogger({ name: 'dispatcher', format: 'pretty', destination: slow });
    for (let i = 0; i < 2_000; i++) logger.info(`line ${i}`);
    logger.info('stopped');
    // What lifecycle.ts does before process.exit: wait for the destination's writes (the fallback far off).
    await new Promise<void>((resolve) => afterWritten(slow, 60_000, resolve));
    expect(lines).toHaveLength(2_001);
    expect(lines.at(-1)).toContain('dispatcher: stopped');
  });

  it.each(['json', 'pretty'])('a %s logger whose reader has gone (EPIPE) drops its lines and lets the process carry on', async (format) => {
    const probe = join(import.meta.dirname, 'testing', 'log-after-reader-gone.ts');
    const child = spawn(process.execPath, [probe], { env: { ...process.env, LOG_FORMAT: format }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = once(child, 'exit');
    await once(child.stdout, 'data');
    child.stdout.destroy();
    child.stdin.write('go\n');
    const [code] = (await exited) as [number | null];
    expect(stderr).toContain('survived');
    expect(code).toBe(0);
  });

  it('never writes an Authorization header or a payload', () => {
    const out = capture(false);
    createLogger({ name: 'gateway', destination: out.stream }).info({ headers: { authorization: 'Bearer sk_live_x' }, payload: { card: 1 } }, 'req');
    expect(out.text()).not.toContain('sk_live_x');
    expect(out.text()).not.toContain('card');
  });
});
