import { thousands } from '@wirehook/core/without-schemas';
import { describe, expect, it } from 'vitest';
import type { DeliveryJob } from '../ports/delivery-port.ts';
import { jobsIn, KEPT_ENDPOINTS, ReceivedEndpoints, SentEndpoints } from './job-endpoints.ts';

// Both sides of the claimed jobs' endpoints, with a structured clone between them as the port
// makes one (the threaded store's own crossing is tested in threaded-store.test.ts).

const job = (endpointId: string, url = 'https://a.example/hook', sealed = 'v1.first') =>
  ({
    delivery: { id: `del_${Math.random()}`, endpointId },
    endpoint: { id: endpointId, url, headers: { 'x-team': 'billing' }, retry: { schedule: [5, 300] } },
    secrets: [{ sealed, createdAt: 1, expiresAt: null }],
    message: { id: 'msg_1', payload: '{}' },
  }) as unknown as DeliveryJob;

/** One answer's jobs across: what crossed (before the caller's side puts anything back), and what the caller then holds. */
function crossing() {
  const sent = new SentEndpoints();
  const received = new ReceivedEndpoints();
  return (jobs: DeliveryJob[]) => {
    sent.leaveOut(jobs);
    const crossed = structuredClone(jobs);
    const held = structuredClone(crossed);
    received.putBack(held);
    return { crossed, held };
  };
}

describe('the claimed jobs’ endpoints across the store thread', () => {
  it('cross whole once, then are left out while unchanged and put back equal, frozen', () => {
    const cross = crossing();
    const first = cross([job('ep_1')]);
    expect(first.crossed[0]!.endpoint).toEqual(job('ep_1').endpoint);
    const second = cross([job('ep_1')]);
    expect(second.crossed[0]!.endpoint).toBeUndefined();
    expect(second.crossed[0]!.secrets).toBeUndefined();
    expect((second.held[0] as unknown as Record<string, unknown>)['endpointCrossing']).toBeUndefined();
    expect(second.held[0]!.endpoint).toEqual(job('ep_1').endpoint);
    expect(second.held[0]!.secrets).toEqual(job('ep_1').secrets);
    expect(Object.isFrozen(second.held[0]!.endpoint)).toBe(true);
    expect(Object.isFrozen((second.held[0]!.endpoint as unknown as { headers: object }).headers)).toBe(true);
    expect(Object.isFrozen(second.held[0]!.secrets[0])).toBe(true);
  });

  it('cross whole again when anything changed: the URL, a secret rotated; then the new ones are put back', () => {
    const cross = crossing();
    cross([job('ep_1')]);
    const moved = cross([job('ep_1', 'https://b.example/hook')]);
    expect(moved.crossed[0]!.endpoint.url).toBe('https://b.example/hook');
    expect(cross([job('ep_1', 'https://b.example/hook')]).held[0]!.endpoint.url).toBe('https://b.example/hook');
    const rotated = cross([job('ep_1', 'https://b.example/hook', 'v1.second')]);
    expect(rotated.crossed[0]!.secrets).toEqual([{ sealed: 'v1.second', createdAt: 1, expiresAt: null }]);
    const after = cross([job('ep_1', 'https://b.example/hook', 'v1.second')]);
    expect(after.crossed[0]!.secrets).toBeUndefined();
    expect(after.held[0]!.secrets[0]!.sealed).toBe('v1.second');
  });

  it('in one answer: the first job of an endpoint crosses whole, the next are left out and put back', () => {
    const { crossed, held } = crossing()([job('ep_1'), job('ep_2'), job('ep_1')]);
    expect(crossed.map((j) => j.endpoint === undefined)).toEqual([false, false, true]);
    expect(held.map((j) => j.endpoint.id)).toEqual(['ep_1', 'ep_2', 'ep_1']);
  });

  it(`keeps the ${thousands(KEPT_ENDPOINTS)} last crossed whole on both sides alike: one forgotten crosses whole again`, () => {
    const cross = crossing();
    for (let n = 0; n <= KEPT_ENDPOINTS; n++) cross([job(`ep_${n}`)]);
    // ep_0 is the one past the limit, forgotten by both sides; ep_1 is still kept.
    expect(cross([job('ep_1')]).crossed[0]!.endpoint).toBeUndefined();
    const again = cross([job('ep_0')]);
    expect(again.crossed[0]!.endpoint).toBeDefined();
    expect(again.held[0]!.endpoint.id).toBe('ep_0');
  });

  it('refuses a job left out for an endpoint the caller’s side never received whole', () => {
    const left = job('ep_9') as unknown as Record<string, unknown>;
    left['endpoint'] = undefined;
    left['secrets'] = undefined;
    left['endpointCrossing'] = 7;
    expect(() => new ReceivedEndpoints().putBack([left as unknown as DeliveryJob])).toThrow(
      /left out endpoint ep_9 as sent in crossing 7, which is not the one this side holds/,
    );
  });

  it('refuses, rather than put back an older endpoint, when the caller missed an answer that carried a change', () => {
    const sent = new SentEndpoints();
    const received = new ReceivedEndpoints();
    const across = (jobs: DeliveryJob[], seen = true) => {
      sent.leaveOut(jobs);
      const copy = structuredClone(jobs);
      if (seen) received.putBack(copy);
      return copy;
    };
    across([job('ep_1')]);
    across([job('ep_1', 'https://moved.example/hook')], false); // lost on the way
    const next = structuredClone(
      across(
        [job('ep_1', 'https://moved.example/hook')].map((j) => j),
        false,
      ),
    );
    expect(next[0]!.endpoint).toBeUndefined();
    expect(() => received.putBack(next)).toThrow(/left out endpoint ep_1 as sent in crossing 2/);
  });

  it('once an answer was missed, refuses every later job left out, another endpoint’s too: the crossings are numbered on both sides', () => {
    const sent = new SentEndpoints();
    const received = new ReceivedEndpoints();
    sent.leaveOut([job('ep_1')]); // never reached the caller
    const answer = [job('ep_1'), job('ep_2')];
    sent.leaveOut(answer);
    expect(() => received.putBack(structuredClone(answer))).toThrow(/left out endpoint ep_1/);
    const later = [job('ep_2')];
    sent.leaveOut(later);
    expect(later[0]!.endpoint).toBeUndefined();
    expect(() => received.putBack(structuredClone(later))).toThrow(/left out endpoint ep_2 as sent in crossing 2/);
  });

  it('finds the jobs of a created message, of claim and of claimMany, and no others', () => {
    const a = job('ep_1');
    expect(jobsIn({ repo: 'messages', method: 'create' }, { created: true, claimed: [a] })).toEqual([a]);
    expect(jobsIn({ repo: 'messages', method: 'create' }, { created: false })).toEqual([]);
    expect(jobsIn({ repo: 'deliveries', method: 'claim' }, a)).toEqual([a]);
    expect(jobsIn({ repo: 'deliveries', method: 'claim' }, null)).toEqual([]);
    expect(jobsIn({ repo: 'deliveries', method: 'claimMany' }, [null, { failed: 'no' }, a])).toEqual([a]);
    expect(jobsIn({ repo: 'deliveries', method: 'show' }, a)).toEqual([]);
  });
});
