import type { Readable } from 'node:stream';

/**
 * Calls `onLine` with each line `stream` reads (without its `\n` or `\r\n`), and with what
 * follows the last newline once the stream closes — ended, or cut by stopChild: readline
 * drops that last part when its input is destroyed rather than ended (a service's last words
 * written without a newline by a process that held the pipe past the cut).
 */
export function eachLine(stream: Readable, onLine: (line: string) => void): void {
  let rest = '';
  const say = (line: string) => onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  // Decoded as UTF-8 across chunks: a character split between two reads stays whole.
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) say(line);
  });
  stream.once('close', () => {
    if (rest !== '') say(rest);
    rest = '';
  });
}
