// How ./dev tells which pnpm it has: from the package.json of the npm package `pnpm` links into,
// without starting pnpm (≈ 0.65 s of every ./dev command); any other pnpm is asked its version.
// The function is run as ./dev defines it, in bash, against pnpm commands made here.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const DEV = join(import.meta.dirname, '..', '..', 'dev');

/** ./dev's `major` and `pnpm_major`, as written there. */
function devFunctions(): string {
  const text = readFileSync(DEV, 'utf8');
  const fn = (name: string) => new RegExp(`^${name}\\(\\) \\{[\\s\\S]*?^\\}$`, 'm').exec(text)?.[0];
  const found = [fn('major'), fn('pnpm_major')];
  expect(found.every((f) => f !== undefined)).toBe(true);
  return found.join('\n');
}

describe("./dev's pnpm version", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dev-pnpm-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** pnpm_major with only `bin` (and the system's tools) on PATH. */
  const pnpmMajor = (bin: string): string =>
    execFileSync('bash', ['-c', `${devFunctions()}\npnpm_major`], { env: { PATH: `${bin}:/usr/bin:/bin` }, encoding: 'utf8' }).trim();

  /** A pnpm package of `version` whose bin is linked from `bin/pnpm` (as npm and .tools link it), and whose command would say `says`. */
  const linkedPackage = (version: string, says: string, name = 'pnpm'): string => {
    const pkg = join(dir, 'node_modules', name);
    mkdirSync(join(pkg, 'bin'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), `{\n  "name": "${name}",\n  "version": "${version}",\n  "bin": { "pnpm": "bin/pnpm.cjs" }\n}\n`);
    writeFileSync(join(pkg, 'bin', 'pnpm.cjs'), `#!/bin/sh\necho ${says}\n`);
    chmodSync(join(pkg, 'bin', 'pnpm.cjs'), 0o755);
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(join(pkg, 'bin', 'pnpm.cjs'), join(bin, 'pnpm'));
    return bin;
  };

  it('reads the version of the pnpm package its command links into, without running it', () => {
    // The command would say 9: what was read is the package's 10.
    expect(pnpmMajor(linkedPackage('10.34.9', '9.0.0'))).toBe('10');
  });

  it('asks any other pnpm (a shim, a package of another name) for its version', () => {
    expect(pnpmMajor(linkedPackage('10.34.9', '9.15.0', 'not-pnpm'))).toBe('9');
    const shim = join(dir, 'shim');
    mkdirSync(shim);
    writeFileSync(join(shim, 'pnpm'), '#!/bin/sh\necho 10.1.0\n');
    chmodSync(join(shim, 'pnpm'), 0o755);
    expect(pnpmMajor(shim)).toBe('10');
  });

  it('asks a linked pnpm whose package.json gives no version it can read', () => {
    expect(pnpmMajor(linkedPackage('next', '10.2.0'))).toBe('10');
  });

  it('is 0 without a pnpm', () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    // Only the empty folder: no system pnpm either.
    expect(execFileSync('/bin/bash', ['-c', `${devFunctions()}\npnpm_major`], { env: { PATH: empty }, encoding: 'utf8' }).trim()).toBe('0');
  });
});
