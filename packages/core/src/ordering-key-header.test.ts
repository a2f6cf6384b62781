import { MAX_ORDERING_KEY_CHARS, MAX_ORDERING_KEY_HEADER_CHARS } from './limits.ts';
import { describe, expect, it } from 'vitest';
import { orderingKeyHeader } from './ordering-key-header.ts';

describe('orderingKeyHeader', () => {
  it('printable ASCII without % or spaces at its ends goes as it is', () => {
    for (const key of ['invoice-1001', 'a b', 'a+b', 'user:42/orders', '~!@#$^&*()']) expect(orderingKeyHeader(key)).toBe(key);
  });

  it('a key with spaces at its ends, characters outside printable ASCII, or a % goes percent-encoded as UTF-8', () => {
    expect(orderingKeyHeader(' a')).toBe('%20a');
    expect(orderingKeyHeader('a ')).toBe('a%20');
    expect(orderingKeyHeader('é')).toBe('%C3%A9');
    expect(orderingKeyHeader('tab\there')).toBe('tab%09here');
    expect(orderingKeyHeader('%20a')).toBe('%2520a');
    expect(orderingKeyHeader('100%')).toBe('100%25');
  });

  it('two keys never share a header, and decodeURIComponent of each header gives its key back', () => {
    // Pairs a pass-through of `%` had sent alike: each lane's first message went out as sequence 1 under one header.
    const keys = [' a', '%20a', 'é', '%C3%A9', 'a ', 'a%20', ' x', '%20x', '%', '%25', 'plain', 'a b'];
    const headers = keys.map(orderingKeyHeader);
    expect(new Set(headers).size).toBe(keys.length);
    for (const [i, key] of keys.entries()) expect(decodeURIComponent(headers[i]!)).toBe(key);
  });

  it(`the longest key (${MAX_ORDERING_KEY_CHARS} characters) stays within the ${MAX_ORDERING_KEY_HEADER_CHARS} the relay takes, % or not`, () => {
    expect(orderingKeyHeader('%'.repeat(MAX_ORDERING_KEY_CHARS)).length).toBeLessThanOrEqual(MAX_ORDERING_KEY_HEADER_CHARS);
    expect(orderingKeyHeader('😀'.repeat(MAX_ORDERING_KEY_CHARS / 2)).length).toBeLessThanOrEqual(MAX_ORDERING_KEY_HEADER_CHARS);
  });
});
