import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const packageDir = resolve(import.meta.dirname, '..');
const env = { ...process.env, PATH: `${join(packageDir, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}` };

function buf(args: string[]): string {
  return execFileSync('buf', args, { cwd: packageDir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe('generated code (pnpm gen)', () => {
  const out = mkdtempSync(join(tmpdir(), 'wirehook-gen-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('is what the .proto files generate, byte for byte (run `pnpm gen` when this fails)', () => {
    buf(['generate', '--output', out]);
    const committed = join(packageDir, 'src', 'gen');
    const fresh = join(out, 'src', 'gen');
    expect(files(committed)).toEqual(files(fresh));
    for (const file of files(fresh)) {
      expect(readFileSync(join(committed, file), 'utf8'), file).toBe(readFileSync(join(fresh, file), 'utf8'));
    }
  });

  it('the .proto files pass buf lint', () => {
    expect(buf(['lint', '../../proto'])).toBe('');
  });
});
