import { describe, expect, it } from 'vitest';
import { checkTransformationCode } from './transformation-code.ts';

describe('checkTransformationCode', () => {
  it('accepts code of exactly 32,768 bytes and refuses 32,769', () => {
    expect(checkTransformationCode('x'.repeat(32_768))).toBeNull();
    expect(checkTransformationCode('x'.repeat(32_769))).toBe('transformation.code must be at most 32,768 bytes (UTF-8); it is 32,769');
  });

  it('counts UTF-8 bytes, not characters', () => {
    // 'é' is 2 bytes: 16,384 of them are 32,768 bytes.
    expect(checkTransformationCode('é'.repeat(16_384))).toBeNull();
    expect(checkTransformationCode(`${'é'.repeat(16_384)}x`)).toBe('transformation.code must be at most 32,768 bytes (UTF-8); it is 32,769');
    // '€' is 3 bytes: 10,922 of them are 32,766 bytes, one more 32,769.
    expect(checkTransformationCode('€'.repeat(10_922))).toBeNull();
    expect(checkTransformationCode('€'.repeat(10_923))).toBe('transformation.code must be at most 32,768 bytes (UTF-8); it is 32,769');
  });

  it('refuses what is not a string', () => {
    expect(checkTransformationCode(42)).toBe('transformation.code must be a string of JavaScript');
    expect(checkTransformationCode(undefined)).toBe('transformation.code must be a string of JavaScript');
  });
});
