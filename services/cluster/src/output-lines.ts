import type { Readable } from 'node:stream';

/**
 * Calls `onLine` with each line `stream` reads, ended by `\n`, `\r\n` or a lone `\r` as readline
 * ends them, and with what follows the last line end once the stream closes — ended, or cut by
 * stopChild: readline drops that last part when its input is destroyed rather than ended (a
 * service's last words written without a newline by a process that held the pipe past the cut).
 */
export function eachLine(stream: Readable, onLine: (line: string) => void): void {
  // The line under way, in its chunks: joined once its end comes (a long line is not copied per chunk).
  let pending: string[] = [];
  // Decoded as UTF-8 across chunks: a character split between two reads stays whole.
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    if (!/[\r\n]/.test(chunk)) return void pending.push(chunk);
    let text = pending.join('') + chunk;
    // A `\r` at the end may be the first half of a `\r\n`: held until the next read says.
    const held = text.endsWith('\r');
    if (held) text = text.slice(0, -1);
    const lines = text.split(/\r\n|\n|\r/);
    const rest = lines.pop()!;
    pending = rest === '' && !held ? [] : [rest + (held ? '\r' : '')];
    for (const line of lines) onLine(line);
  });
  stream.once('close', () => {
    // What is left may hold a `\r` that a read with no line end came after ('a\r', then 'b').
    const rest = pending.join('').replace(/\r$/, '');
    pending = [];
    if (rest !== '') for (const line of rest.split(/\r\n|\n|\r/)) onLine(line);
  });
}
