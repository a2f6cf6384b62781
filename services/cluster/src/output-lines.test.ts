import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { eachLine } from './output-lines.ts';

/** The lines `eachLine` said for `chunks` written to a stream, then the stream ended (`end`) or cut (`destroy`). */
async function linesOf(chunks: (string | Buffer)[], how: 'end' | 'destroy'): Promise<string[]> {
  const stream = new PassThrough();
  const lines: string[] = [];
  eachLine(stream, (line) => lines.push(line));
  const closed = new Promise((resolve) => stream.once('close', resolve));
  for (const chunk of chunks) stream.write(chunk);
  // Read what was written before the stream goes (a pipe's reads come before its cut).
  await new Promise((resolve) => setImmediate(resolve));
  if (how === 'end') stream.end();
  else stream.destroy();
  await closed;
  return lines;
}

describe('eachLine', () => {
  it('says each line without its end (\\n, \\r\\n or a lone \\r, as readline), across chunks', async () => {
    expect(await linesOf(['first\nsec', 'ond\r\nthird\n'], 'end')).toEqual(['first', 'second', 'third']);
    expect(await linesOf(['a\rb\n'], 'end')).toEqual(['a', 'b']);
    // A \r\n split between two reads is one line end.
    expect(await linesOf(['a\r', '\nb\n'], 'end')).toEqual(['a', 'b']);
    expect(await linesOf(['a\r', 'b\n'], 'end')).toEqual(['a', 'b']);
    expect(await linesOf(['a\r', 'b'], 'destroy')).toEqual(['a', 'b']);
  });

  it('says the last words after the last newline when the stream is cut (destroyed), as when it ends', async () => {
    expect(await linesOf(['first\nlast words'], 'destroy')).toEqual(['first', 'last words']);
    expect(await linesOf(['first\nlast words'], 'end')).toEqual(['first', 'last words']);
    // Nothing after the last newline: no empty line.
    expect(await linesOf(['first\n'], 'destroy')).toEqual(['first']);
  });

  it('keeps a character whose UTF-8 bytes two reads split', async () => {
    const bytes = Buffer.from('café ✓\n', 'utf8');
    const cut = bytes.indexOf(0xa9); // inside 'é' (0xc3 0xa9)
    expect(await linesOf([bytes.subarray(0, cut), bytes.subarray(cut)], 'end')).toEqual(['café ✓']);
  });
});
