import { PassThrough } from 'node:stream';

/** A destination for a JSON logger whose lines a test reads back, parsed, in `lines` (clear it with `lines.length = 0`). */
export function jsonLines(): { destination: PassThrough; lines: Record<string, unknown>[] } {
  const destination = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  destination.on('data', (chunk: Buffer) =>
    lines.push(
      ...chunk
        .toString('utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    ),
  );
  return { destination, lines };
}
