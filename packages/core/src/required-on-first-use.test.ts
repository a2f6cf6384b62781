import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { requiredOnFirstUse } from './required-on-first-use.ts';

describe('requiredOnFirstUse', () => {
  it('requires the package at the first call, from the caller’s own dependencies, and keeps it', () => {
    const ajv = requiredOnFirstUse<typeof import('ajv/dist/2020.js')>(import.meta.url, 'ajv/dist/2020.js');
    const first = ajv();
    expect(typeof first.Ajv2020).toBe('function');
    expect(ajv()).toBe(first);
  });

  it('keeps no failure: a module missing at the first call is found by a later one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'first-use-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const late = requiredOnFirstUse<{ answer: number }>(pathToFileURL(join(dir, 'caller.js')).href, './late.cjs');
    expect(() => late()).toThrow(/Cannot find module '\.\/late\.cjs'/);
    writeFileSync(join(dir, 'late.cjs'), 'module.exports = { answer: 42 };');
    expect(late().answer).toBe(42);
  });
});
