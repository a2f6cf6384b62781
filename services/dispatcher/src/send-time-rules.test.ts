import { describe, expect, it } from 'vitest';
import { urlRuleViolation } from './send-time-rules.ts';

describe('endpoint URL rules at send time', () => {
  it.each([
    ['https://hooks.example.com/in', null],
    ['https://hooks.example.com:443/in', null],
    ['https://hooks.example.com:8443/in', null],
    ['http://hooks.example.com/in', 'blocked: url must use https'],
    ['https://hooks.example.com:8080/in', 'blocked: url must use port 443 or 8443'],
    ['https://user:pw@hooks.example.com/in', 'blocked: url must not contain credentials'],
    ['ftp://hooks.example.com/in', 'blocked: url must use https'],
    ['not a url', 'blocked: url is not a valid URL'],
  ])('%s → %s', (url, expected) => {
    expect(urlRuleViolation(url)).toBe(expected);
  });
});
