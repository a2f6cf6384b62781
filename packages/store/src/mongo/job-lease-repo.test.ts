// The job lease's take against a scripted collection (no server here; the contract runs it
// against MongoDB when MONGODB_URL is set): what it sends, and what it makes of the answer.
import { MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { leaseTakeUpdate, MongoJobLeaseRepo } from './job-lease-repo.ts';
import { OPERATIONS_PLANS } from './plans/operations.ts';

type Sent = { filter: unknown; update: unknown; options: Record<string, unknown> };

/** A repo whose findOneAndUpdate records what it is sent and answers `answer` (thrown when an Error). */
function scripted(answer: Record<string, unknown> | null | Error) {
  const sent: Sent[] = [];
  const conn = {
    jobLeases: {
      findOneAndUpdate: async (filter: unknown, update: unknown, options: Record<string, unknown>) => {
        sent.push({ filter, update, options });
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
  };
  return { repo: new MongoJobLeaseRepo(conn as unknown as MongoConnection), sent };
}

const NOW = 1_764_000_000_000;

describe('MongoJobLeaseRepo.take', () => {
  it("sends the lease's length alone: the end is the server's time plus it, no process's time in the filter or the update", async () => {
    const { repo, sent } = scripted({ _id: 'retention', holder: 'h1', leaseUntil: 5_000_120_000, leaseMs: 120_000 });
    await repo.take('retention', 'h1', NOW, NOW + 120_000);
    const [{ filter, update, options }] = sent as [Sent];
    expect(filter).toEqual(OPERATIONS_PLANS.jobLease('retention', 'h1', 120_000).filter);
    expect(update).toEqual([{ $set: { holder: { $literal: 'h1' }, leaseMs: { $literal: 120_000 }, leaseUntil: { $add: [{ $toLong: '$$NOW' }, 120_000] } } }]);
    const sentText = JSON.stringify({ filter, update });
    expect(sentText).not.toContain(String(NOW));
    expect(sentText).not.toContain(String(NOW + 120_000));
    expect(options).toMatchObject({
      upsert: true,
      returnDocument: 'after',
      writeConcern: { w: 'majority', wtimeoutMS: 5_000 },
      comment: 'operations.jobLease',
    });
  });

  it("answers the take's time by the server's clock: the lease's end less its length", async () => {
    const { repo } = scripted({ _id: 'retention', holder: 'h1', leaseUntil: 5_000_120_000, leaseMs: 120_000 });
    expect(await repo.take('retention', 'h1', NOW, NOW + 120_000)).toEqual({ at: 5_000_000_000 });
  });

  it('is refused when another holds it: a document of another holder, or the upsert colliding on _id', async () => {
    expect(await scripted({ _id: 'retention', holder: 'h2', leaseUntil: 1, leaseMs: 1 }).repo.take('retention', 'h1', NOW, NOW + 1)).toBeNull();
    const collided = new MongoServerError({
      code: 11000,
      errmsg: 'E11000 duplicate key error collection: wirehook.job_leases index: _id_ dup key: { _id: "retention" }',
    });
    expect(await scripted(collided).repo.take('retention', 'h1', NOW, NOW + 1)).toBeNull();
  });

  it('throws any other error, and a lease that would end before it is taken', async () => {
    await expect(scripted(new MongoServerError({ code: 13, errmsg: 'not authorized' })).repo.take('retention', 'h1', NOW, NOW + 1)).rejects.toThrow(
      'not authorized',
    );
    const { repo, sent } = scripted(null);
    await expect(repo.take('retention', 'h1', NOW, NOW)).rejects.toThrow(RangeError);
    await expect(repo.take('retention', 'h1', NOW, Number.NaN)).rejects.toThrow(RangeError);
    expect(sent).toEqual([]);
  });

  it('keeps a holder id that begins with $ a value, not a field path', () => {
    expect(leaseTakeUpdate('$leaseUntil', 1)[0]?.$set.holder).toEqual({ $literal: '$leaseUntil' });
  });
});
