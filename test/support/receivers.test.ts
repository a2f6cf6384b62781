// The receivers' loopback addresses under `./dev test`'s two lanes: lane 1 the odd 127.0.0.N, lane 2 the even ones.
import { describe, expect, it } from 'vitest';
import { freshLoopbackIp } from './receivers.ts';

describe('freshLoopbackIp', () => {
  it('gives lane 1 odd addresses and lane 2 even ones, each once, within 127.0.0.2 … 254', () => {
    const last = (ip: string) => Number(ip.split('.')[3]);
    const odd = Array.from({ length: 40 }, () => last(freshLoopbackIp(1)));
    const even = Array.from({ length: 40 }, () => last(freshLoopbackIp(2)));
    expect(odd.every((n) => n % 2 === 1 && n >= 3 && n <= 253)).toBe(true);
    expect(even.every((n) => n % 2 === 0 && n >= 2 && n <= 254)).toBe(true);
    expect(new Set([...odd, ...even]).size).toBe(80);
  });

  it('says so when a share is used up (126 odd addresses), rather than loop', () => {
    for (let i = 0; i < 200; i++) {
      try {
        freshLoopbackIp(1);
      } catch (err) {
        expect((err as Error).message).toBe("every loopback address of this process's share (126) is used");
        return;
      }
    }
    expect.fail('no error after 200 addresses');
  });
});
