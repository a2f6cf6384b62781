import { describe, expect, it } from 'vitest';
import { InvalidError } from './errors.ts';
import { createEndpointBody, listMessagesQuery, pageQuery, parseInput, sendMessageBody } from './schemas.ts';

const ok = { consumer_id: 'con_1', url: 'https://hooks.example.com/x' };
const messageOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidError);
    return (err as Error).message;
  }
  throw new Error('expected InvalidError');
};

describe('request schemas', () => {
  it('name the offending field and the rule', () => {
    expect(messageOf(() => parseInput(createEndpointBody, { ...ok, retry: { count: 4, interval: '1m' } }, 'body'))).toBe(
      'retry.count: must be one of 0, 1, 2, 3, 5, 7, 12',
    );
    expect(messageOf(() => parseInput(createEndpointBody, { ...ok, retry: { count: 12, interval: 'progressive' } }, 'body'))).toMatch(
      /^retry: count 12 with interval progressive spans more than 3 days/,
    );
    expect(messageOf(() => parseInput(createEndpointBody, { ...ok, description: 'x'.repeat(201) }, 'body'))).toBe(
      'description: must be at most 200 characters',
    );
    expect(messageOf(() => parseInput(createEndpointBody, { url: ok.url }, 'request body'))).toBe('consumer_id: is required');
    expect(messageOf(() => parseInput(createEndpointBody, { ...ok, colour: 'red' }, 'body'))).toBe('unknown field "colour"');
    expect(messageOf(() => parseInput(createEndpointBody, [], 'request body'))).toBe('request body must be a JSON object');
  });

  it('check endpoint URL syntax: https on 443 or 8443, at most 2,000 characters', () => {
    const urlError = (url: string) => messageOf(() => parseInput(createEndpointBody, { ...ok, url }, 'body'));
    expect(urlError('http://hooks.example.com/')).toBe('url: must use https');
    expect(urlError('https://hooks.example.com:8080/')).toBe('url: must use port 443 or 8443');
    expect(urlError('not a url')).toBe('url: is not a valid URL');
    expect(urlError(`https://hooks.example.com/${'a'.repeat(2_000)}`)).toBe('url: must be at most 2000 characters');
    expect(parseInput(createEndpointBody, { ...ok, url: 'https://hooks.example.com:8443/x' }, 'body').url).toBe('https://hooks.example.com:8443/x');
  });

  it('validate event type names and message payloads', () => {
    expect(messageOf(() => parseInput(sendMessageBody, { consumer: 'c', event_type: 'a b', payload: {} }, 'body'))).toBe(
      'event_type: may contain only letters, digits and _ . : -',
    );
    expect(messageOf(() => parseInput(sendMessageBody, { consumer: 'c', event_type: 'a' }, 'body'))).toBe('payload: is required');
    expect(parseInput(sendMessageBody, { consumer: 'c', event_type: 'user.created:v1_x-y', payload: [1] }, 'body').payload).toEqual([1]);
  });

  it('refuse an ordering_key with a lone surrogate (it cannot go in a header); a surrogate pair is one character and fits', () => {
    const send = (ordering_key: string) => parseInput(sendMessageBody, { consumer: 'c', event_type: 'a', payload: {}, ordering_key }, 'body');
    expect(messageOf(() => send('order-\ud800'))).toBe('ordering_key: must be well-formed Unicode (no lone surrogate such as \\ud800)');
    expect(messageOf(() => send('\udc00'))).toBe('ordering_key: must be well-formed Unicode (no lone surrogate such as \\ud800)');
    expect(send('order-\ud83d\ude00').ordering_key).toBe('order-😀');
  });

  it('parse list queries: limit 1 to 100', () => {
    expect(parseInput(pageQuery, { limit: '100' }, 'query').limit).toBe(100);
    expect(messageOf(() => parseInput(pageQuery, { limit: '0' }, 'query'))).toBe('limit: must be from 1 to 100');
    expect(messageOf(() => parseInput(pageQuery, { limit: '101' }, 'query'))).toBe('limit: must be from 1 to 100');
    expect(messageOf(() => parseInput(pageQuery, { limit: '2.5' }, 'query'))).toBe('limit: must be a whole number from 1 to 100');
    expect(parseInput(listMessagesQuery, { since: '1700000000000', status: 'failed' }, 'query')).toEqual({
      since: 1_700_000_000_000,
      status: 'failed',
    });
  });
});
