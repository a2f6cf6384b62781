// The layout upgrade's lease against writes whose outcome is unknown (an election, a majority
// that does not confirm in time), without a server: a JobLeaseRepo that answers from a script,
// and the driver's own error classes.
import { MongoNetworkError, MongoServerError, MongoWriteConcernError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { JobLeaseRepo } from '../ports/job-lease-port.ts';
import { RENEW_TRIES, UNKNOWN_TAKES_MS, UpgradeLease } from './upgrade-lease.ts';

const notConfirmed = () =>
  new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 64, errmsg: 'waiting for replication timed out', errInfo: { wtimeout: true } } } as never);
const steppedDown = () => new MongoServerError({ code: 189, errmsg: 'primary stepped down' });
const duplicateKey = () => new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error collection: job_leases index: _id_ dup key' });

/** Answers each take with the next of `answers` (an Error is thrown, a promise awaited); records takes and releases. */
function scripted(answers: (boolean | Error | Promise<boolean>)[], releases: (Error | Promise<never>)[] = [], wait?: (ms: number) => Promise<void>) {
  const calls: string[] = [];
  let clock = 1_000;
  const jobs: JobLeaseRepo = {
    async take(name, holder, now, until) {
      calls.push(`take ${name} ${holder} ${until - now}`);
      const answer = answers.shift();
      if (answer === undefined) throw new Error('no answer scripted');
      if (answer instanceof Error) throw answer;
      if (typeof answer === 'boolean') return answer ? { at: now } : null;
      const held = await answer;
      calls.push(`answered ${held}`);
      return held ? { at: now } : null;
    },
    async release(name, holder) {
      calls.push(`release ${name} ${holder}`);
      const failure = releases.shift();
      if (failure instanceof Error) throw failure;
      await failure;
    },
  };
  const log: string[] = [];
  const waits: number[] = [];
  const lease = new UpgradeLease(jobs, {
    name: 'schema-upgrade',
    holder: 'h1',
    leaseMs: 120_000,
    log: (line) => log.push(line),
    now: () => clock,
    elapsed: () => clock,
    releaseWaitMs: 50,
    wait: async (ms) => {
      waits.push(ms);
      await wait?.(ms);
    },
  });
  return { lease, calls, log, waits, advance: (ms: number) => (clock += ms) };
}

describe('UpgradeLease', () => {
  it('a take of unknown outcome (not confirmed, a primary stepping down, a lost connection, the time limit) is no lease and no failed start', async () => {
    const timeLimit = new MongoServerError({ code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' });
    // The time limit run out while the majority's confirmation was awaited: the write may stand.
    const timeLimitConfirming = new MongoWriteConcernError({
      ok: 1,
      writeConcernError: { code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit while waiting for replication' },
    } as never);
    const s = scripted([notConfirmed(), steppedDown(), new MongoNetworkError('connection reset'), timeLimit, timeLimitConfirming, true]);
    for (let i = 0; i < 5; i++) expect(await s.lease.take()).toBe(false);
    expect(s.log.join('\n')).toContain('not confirmed (waiting for replication timed out); asking again');
    expect(s.log.join('\n')).toContain('not confirmed (operation exceeded time limit); asking again');
    expect(s.log.join('\n')).toContain('not confirmed (operation exceeded time limit while waiting for replication); asking again');
    expect(await s.lease.take()).toBe(true); // the same holder asks again
    expect(s.calls).toEqual(Array(6).fill('take schema-upgrade h1 120000'));
  });

  it('any other error of a take fails the start at once', async () => {
    await expect(scripted([new Error('not authorized on wirehook')]).lease.take()).rejects.toThrow('not authorized');
    await expect(scripted([duplicateKey()]).lease.take()).rejects.toThrow('E11000');
  });

  it(`unknown outcomes for ${UNKNOWN_TAKES_MS / 60_000} minutes in a row fail the start with the cause; an answer starts the count over`, async () => {
    const s = scripted([notConfirmed(), false, notConfirmed(), notConfirmed(), notConfirmed()]);
    expect(await s.lease.take()).toBe(false);
    s.advance(UNKNOWN_TAKES_MS);
    expect(await s.lease.take()).toBe(false); // answered: another holds it
    expect(await s.lease.take()).toBe(false); // unknown since now
    s.advance(UNKNOWN_TAKES_MS - 1);
    expect(await s.lease.take()).toBe(false);
    s.advance(1);
    await expect(s.lease.take()).rejects.toThrow('its lease has not been confirmed for 5 minutes (waiting for replication timed out)');
    expect(s.calls.at(-1)).toBe('release schema-upgrade h1'); // one of those takes may have stood
  });

  it(`a renewal whose outcome is unknown is asked again, up to ${RENEW_TRIES} tries, a wait between`, async () => {
    const confirmed = scripted([notConfirmed(), steppedDown(), true]);
    await confirmed.lease.renew();
    expect(confirmed.calls).toHaveLength(3);
    expect(confirmed.waits).toEqual([2_000, 2_000]);

    const never = scripted([notConfirmed(), notConfirmed(), notConfirmed(), true]);
    await expect(never.lease.renew()).rejects.toBeInstanceOf(MongoWriteConcernError);
    expect(never.calls).toHaveLength(3);

    await expect(scripted([duplicateKey(), true]).lease.renew()).rejects.toThrow('E11000');
  });

  it('a renewal still asking again when the lease is given up does not take it back', async () => {
    let endWait = () => {};
    const waiting = new Promise<void>((resolve) => (endWait = resolve));
    const s = scripted([true, notConfirmed(), true], [], () => waiting);
    expect(await s.lease.take()).toBe(true);
    const renewal = s.lease.renew(); // its first try unknown: it waits to ask again
    await s.lease.release();
    endWait();
    await expect(renewal).rejects.toThrow('given its lease up');
    expect(s.calls).toEqual(['take schema-upgrade h1 120000', 'take schema-upgrade h1 120000', 'release schema-upgrade h1']);
    expect(await s.lease.take()).toBe(true); // taken again later: renewed as before
    await expect(s.lease.renew()).rejects.toThrow('no answer scripted');
  });

  it('a release waits for a renewal’s take still on its way, so that take cannot stand after it', async () => {
    let answer = (_held: boolean) => {};
    const onItsWay = new Promise<boolean>((resolve) => (answer = resolve));
    const s = scripted([true, onItsWay]);
    expect(await s.lease.take()).toBe(true);
    const renewal = s.lease.renew();
    const released = s.lease.release();
    await Promise.resolve();
    expect(s.calls.at(-1)).toBe('take schema-upgrade h1 120000'); // not released yet
    answer(true);
    await released;
    await renewal;
    expect(s.calls.slice(-2)).toEqual(['answered true', 'release schema-upgrade h1']);
  });

  it("a renewal that finds the lease another holder's ends the upgrade", async () => {
    await expect(scripted([false]).lease.renew()).rejects.toThrow('lost its lease to another process');
  });

  it('runs the work only when taken, and gives the lease up after it, whether it ended or failed', async () => {
    const notTaken = scripted([false]);
    let ran = false;
    expect(await notTaken.lease.runIfTaken(async () => void (ran = true))).toBe(false);
    expect(ran).toBe(false);
    expect(notTaken.calls).toEqual(['take schema-upgrade h1 120000']);

    const done = scripted([true, true]);
    expect(await done.lease.runIfTaken((renew) => renew())).toBe(true);
    expect(done.calls).toEqual(['take schema-upgrade h1 120000', 'take schema-upgrade h1 120000', 'release schema-upgrade h1']);

    const failed = scripted([true]);
    await expect(
      failed.lease.runIfTaken(async () => {
        throw new Error('a batch failed');
      }),
    ).rejects.toThrow('a batch failed');
    expect(failed.calls.at(-1)).toBe('release schema-upgrade h1');
  });

  it('a stop while the take waits for its answer (a primary being elected) ends the wait, and gives up what the take won once it answers', async () => {
    let answer = (_held: boolean) => {};
    const s = scripted([new Promise<boolean>((resolve) => (answer = resolve))]);
    const stop = new AbortController();
    let ran = false;
    const running = s.lease.runIfTaken(async () => void (ran = true), stop.signal);
    await Promise.resolve();
    stop.abort(new Error('SIGTERM'));
    await new Promise((resolve) => setImmediate(resolve)); // the release under way
    expect(s.calls).toEqual(['take schema-upgrade h1 120000']); // it waits for the take's answer
    answer(true);
    await expect(running).rejects.toThrow('SIGTERM');
    expect(ran).toBe(false);
    expect(s.calls).toEqual(['take schema-upgrade h1 120000', 'answered true', 'release schema-upgrade h1']);
    await expect(s.lease.renew()).rejects.toThrow('given its lease up'); // that take's answer did not take it back
  });

  it('a stop asked before the take: none is sent', async () => {
    const s = scripted([true]);
    const stop = new AbortController();
    stop.abort(new Error('SIGTERM'));
    await expect(s.lease.runIfTaken(async () => {}, stop.signal)).rejects.toThrow('SIGTERM');
    expect(s.calls).toEqual([]);
  });

  it(`unknown outcomes timed by the monotonic clock: a wall clock stepping forward fails no start before ${UNKNOWN_TAKES_MS / 60_000} minutes`, async () => {
    let wall = 1_000;
    let mono = 0;
    const jobs: JobLeaseRepo = {
      take: async () => {
        throw notConfirmed();
      },
      release: async () => {},
    };
    const lease = new UpgradeLease(jobs, { name: 'schema-upgrade', holder: 'h1', leaseMs: 120_000, log: () => {}, now: () => wall, elapsed: () => mono });
    expect(await lease.take()).toBe(false);
    wall += 3_600_000; // an hour's step, a second later
    mono += 1_000;
    expect(await lease.take()).toBe(false);
    mono += UNKNOWN_TAKES_MS;
    await expect(lease.take()).rejects.toThrow('has not been confirmed');
  });

  it('nor does the stop wait for a take that never answers: the lease is left to run out', async () => {
    const s = scripted([new Promise<boolean>(() => {})]);
    const stop = new AbortController();
    const running = s.lease.runIfTaken(async () => {}, stop.signal);
    stop.abort(new Error('SIGTERM'));
    await expect(running).rejects.toThrow('SIGTERM');
    expect(s.calls).toEqual(['take schema-upgrade h1 120000']);
    expect(s.log.join('\n')).toContain('could not be given up (no answer in 0.05 s); it runs out in 120 s');
  });

  it('a release that fails is logged, not thrown: the lease then runs out', async () => {
    const s = scripted([true], [new Error('connection closed')]);
    expect(await s.lease.runIfTaken(async () => {})).toBe(true);
    expect(s.log.join('\n')).toContain('could not be given up (connection closed); it runs out in 120 s');
  });

  it('a release without an answer (a primary being elected) is left to run out after its wait, not waited for by a stop', async () => {
    const s = scripted([true], [new Promise<never>(() => {})]);
    expect(await s.lease.runIfTaken(async () => {})).toBe(true);
    expect(s.calls.at(-1)).toBe('release schema-upgrade h1');
    expect(s.log.join('\n')).toContain('could not be given up (no answer in 0.05 s); it runs out in 120 s');
  });

  it('nor a renewal’s take that never comes back', async () => {
    const s = scripted([true, new Promise<boolean>(() => {})]);
    expect(await s.lease.take()).toBe(true);
    void s.lease.renew();
    await s.lease.release();
    expect(s.calls).toEqual(['take schema-upgrade h1 120000', 'take schema-upgrade h1 120000']); // the release not sent after it
    expect(s.log.join('\n')).toContain('could not be given up (no answer in 0.05 s)');
  });
});
