// The layout upgrade's lease against a write a majority did not confirm, without a server: a
// JobLeaseRepo that answers from a script, and the driver's own error class.
import { MongoWriteConcernError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { JobLeaseRepo } from '../ports/job-lease-port.ts';
import { RENEW_TRIES, UpgradeLease } from './upgrade-lease.ts';

const notConfirmed = () =>
  new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 64, errmsg: 'waiting for replication timed out', errInfo: { wtimeout: true } } } as never);

/** Answers each take with the next of `answers` (an Error is thrown); records takes and releases. */
function scripted(answers: (boolean | Error)[], releases: Error[] = []) {
  const calls: string[] = [];
  const jobs: JobLeaseRepo = {
    async take(name, holder, now, until) {
      calls.push(`take ${name} ${holder} ${until - now}`);
      const answer = answers.shift();
      if (answer === undefined) throw new Error('no answer scripted');
      if (answer instanceof Error) throw answer;
      return answer;
    },
    async release(name, holder) {
      calls.push(`release ${name} ${holder}`);
      const failure = releases.shift();
      if (failure !== undefined) throw failure;
    },
  };
  const log: string[] = [];
  const waits: number[] = [];
  const lease = new UpgradeLease(jobs, {
    name: 'schema-upgrade',
    holder: 'h1',
    leaseMs: 120_000,
    log: (line) => log.push(line),
    now: () => 1_000,
    wait: async (ms) => void waits.push(ms),
  });
  return { lease, calls, log, waits };
}

describe('UpgradeLease', () => {
  it('a take a majority did not confirm is no lease, and no failed start: the same holder asks again', async () => {
    const s = scripted([notConfirmed(), true]);
    expect(await s.lease.take()).toBe(false);
    expect(s.log.join('\n')).toContain('not confirmed by a majority');
    expect(await s.lease.take()).toBe(true);
    expect(s.calls).toEqual(['take schema-upgrade h1 120000', 'take schema-upgrade h1 120000']);
  });

  it('any other error of a take fails the start', async () => {
    const s = scripted([new Error('not authorized on wirehook')]);
    await expect(s.lease.take()).rejects.toThrow('not authorized');
  });

  it(`a renewal not confirmed is asked again, up to ${RENEW_TRIES} tries, a wait between`, async () => {
    const confirmed = scripted([notConfirmed(), notConfirmed(), true]);
    await confirmed.lease.renew();
    expect(confirmed.calls).toHaveLength(3);
    expect(confirmed.waits).toEqual([2_000, 2_000]);

    const never = scripted([notConfirmed(), notConfirmed(), notConfirmed(), true]);
    await expect(never.lease.renew()).rejects.toBeInstanceOf(MongoWriteConcernError);
    expect(never.calls).toHaveLength(3);
  });

  it('a renewal that finds the lease another holder’s ends the upgrade', async () => {
    const s = scripted([false]);
    await expect(s.lease.renew()).rejects.toThrow('lost its lease to another process');
  });

  it('release gives the holder’s lease up; a release that fails is logged, not thrown', async () => {
    const s = scripted([], [new Error('connection closed')]);
    await s.lease.release();
    expect(s.calls).toEqual(['release schema-upgrade h1']);
    expect(s.log.join('\n')).toContain('could not be given up (connection closed); it runs out in 120 s');
  });
});
