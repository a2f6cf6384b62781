// The job lease's take against a scripted collection (no server here), and, with MONGODB_URL,
// its take-over rule against documents written straight into a real collection.
import { randomUUID } from 'node:crypto';
import { Long, MongoClient, MongoServerError, MongoWriteConcernError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { leaseTakeUpdate, MongoJobLeaseRepo } from './job-lease-repo.ts';
import { openMongoStore } from './open-mongo-store.ts';

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
const SERVER_NOW = { $toLong: '$$NOW' };

describe('MongoJobLeaseRepo.take', () => {
  it("sends the lease's length alone: its times are the server's, no process's time in the filter or the update", async () => {
    const { repo, sent } = scripted({ _id: 'retention', holder: 'h1', takenAt: 5_000_000_000 });
    await repo.take('retention', 'h1', NOW, NOW + 120_000);
    const [{ filter, update, options }] = sent as [Sent];
    // By _id alone: MongoDB refuses $expr in an upsert's filter (code 224).
    expect(filter).toEqual({ _id: 'retention' });
    expect(JSON.stringify(filter)).not.toContain('$expr');
    const taken = {
      $or: [
        { $eq: ['$holder', { $literal: 'h1' }] },
        { $lte: [{ $ifNull: ['$leaseUntil', 0] }, SERVER_NOW] },
        // The holder's own length while its times add up; the taker's on a lease an earlier release wrote.
        {
          $gt: ['$leaseUntil', { $add: [SERVER_NOW, 120_000, { $cond: [{ $eq: ['$leaseUntil', { $add: ['$takenAt', '$leaseMs'] }] }, '$leaseMs', 120_000] }] }],
        },
      ],
    };
    expect(update).toEqual([
      {
        $set: {
          holder: { $cond: [taken, { $literal: 'h1' }, '$holder'] },
          takenAt: { $cond: [taken, SERVER_NOW, '$takenAt'] },
          leaseMs: { $cond: [taken, { $literal: 120_000 }, '$leaseMs'] },
          leaseUntil: { $cond: [taken, { $add: [SERVER_NOW, 120_000] }, '$leaseUntil'] },
        },
      },
    ]);
    const sentText = JSON.stringify({ filter, update });
    expect(sentText).not.toContain(String(NOW));
    expect(sentText).not.toContain(String(NOW + 120_000));
    expect(options).toMatchObject({
      upsert: true,
      returnDocument: 'after',
      projection: { holder: 1, takenAt: 1 },
      writeConcern: { w: 'majority', wtimeoutMS: 5_000 },
      comment: 'operations.jobLease',
      maxTimeMS: 5_000,
    });
  });

  it("answers the take's time by the server's clock, as its write set it (takenAt, not the end less a length)", async () => {
    const doc = { _id: 'retention', holder: 'h1', takenAt: 5_000_000_000, leaseMs: 90_000, leaseUntil: 7_000_000_000 };
    expect(await scripted(doc).repo.take('retention', 'h1', NOW, NOW + 120_000)).toEqual({ at: 5_000_000_000 });
    // As a client that does not promote 64-bit integers reads it.
    expect(await scripted({ ...doc, takenAt: Long.fromNumber(5_000_000_000) }).repo.take('retention', 'h1', NOW, NOW + 120_000)).toEqual({ at: 5_000_000_000 });
    expect(await scripted({ ...doc, takenAt: 5_000_000_000n }).repo.take('retention', 'h1', NOW, NOW + 120_000)).toEqual({ at: 5_000_000_000 });
  });

  it('throws for a lease held with no time of its take, rather than answer it not held (its holder would renew it for ever)', async () => {
    const { takenAt: _, ...untimed } = { _id: 'retention', holder: 'h1', takenAt: 1 };
    await expect(scripted(untimed).repo.take('retention', 'h1', NOW, NOW + 1)).rejects.toThrow('a job lease taken without its server time');
  });

  it('is refused when another holds it: the post-image names the other holder, or two first takes collide on _id', async () => {
    expect(await scripted({ _id: 'retention', holder: 'h2', takenAt: 1 }).repo.take('retention', 'h1', NOW, NOW + 1)).toBeNull();
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

  it('a refusal whose majority is late (a write-concern error naming another holder) is null; one naming this holder throws', async () => {
    const late = (holder: string) =>
      new MongoWriteConcernError({
        ok: 1,
        value: { _id: 'retention', holder, takenAt: 1 },
        writeConcernError: { code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' },
      } as never);
    expect(await scripted(late('h2')).repo.take('retention', 'h1', NOW, NOW + 1)).toBeNull();
    // Taken but perhaps not durable: the outcome is unknown, the caller's to handle (the upgrade lease waits it out).
    await expect(scripted(late('h1')).repo.take('retention', 'h1', NOW, NOW + 1)).rejects.toBeInstanceOf(MongoWriteConcernError);
    const noImage = new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' } } as never);
    await expect(scripted(noImage).repo.take('retention', 'h1', NOW, NOW + 1)).rejects.toBeInstanceOf(MongoWriteConcernError);
  });

  it('keeps a holder id that begins with $ a value, not a field path', () => {
    const { holder } = leaseTakeUpdate('$leaseUntil', 1)[0]?.$set ?? {};
    expect(holder?.$cond[1]).toEqual({ $literal: '$leaseUntil' });
    expect(JSON.stringify(holder?.$cond[0])).toContain('{"$eq":["$holder",{"$literal":"$leaseUntil"}]}');
  });
});

const url = process.env['MONGODB_URL'];

describe.skipIf(url === undefined || url === '')('MongoJobLeaseRepo take-over, against documents written as they are found (MONGODB_URL)', () => {
  it('two first takes at once: one holds it, the other refused without an error; times stored as 64-bit integers; a renewal moves takenAt', async () => {
    const dbName = `wirehook_leases_${randomUUID().replaceAll('-', '')}`;
    const store = await openMongoStore({ url: url as string, dbName });
    const client = new MongoClient(url as string);
    try {
      const [a, b] = await Promise.all([store.jobs.take('race', 'a', 0, 60_000), store.jobs.take('race', 'b', 0, 60_000)]);
      expect([a, b].filter((taken) => taken !== null)).toHaveLength(1);
      const holder = a !== null ? 'a' : 'b';
      const stored = await client
        .db(dbName)
        .collection('job_leases')
        .findOne({ _id: 'race' as never }, { promoteLongs: false });
      expect(stored).toMatchObject({ holder, leaseMs: 60_000 });
      expect(stored?.['takenAt']).toBeInstanceOf(Long);
      expect(stored?.['leaseUntil']).toBeInstanceOf(Long);
      const first = (a ?? b)!.at;
      await new Promise((resolve) => setTimeout(resolve, 20)); // the server's clock moves on between the two takes
      const renewed = await store.jobs.take('race', holder, 0, 60_000);
      expect(renewed?.at).toBeGreaterThan(first);
    } finally {
      await store.close();
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  });

  it("takes over a lease ending over one of the holder's own leases past the end a take now would set, by the server's clock; keeps one within", async () => {
    const dbName = `wirehook_leases_${randomUUID().replaceAll('-', '')}`;
    const store = await openMongoStore({ url: url as string, dbName });
    const client = new MongoClient(url as string);
    try {
      const leases = client.db(dbName).collection<{ _id: string; holder: string; leaseUntil: number; takenAt?: number; leaseMs?: number }>('job_leases');
      const L = 60_000;
      // The server's time now, as the leases read it.
      const [{ now }] = (await client
        .db(dbName)
        .aggregate([{ $documents: [{ now: SERVER_NOW }] }])
        .toArray()) as [{ now: number }];
      const written = (leaseUntil: number, holderMs: number | null, stale = false) => ({
        holder: 'old',
        leaseUntil,
        // An earlier release's take rewrote the end alone: the times no longer add up.
        ...(holderMs === null ? {} : { leaseMs: holderMs, takenAt: stale ? leaseUntil - holderMs - 1 : leaseUntil - holderMs }),
      });
      await leases.insertMany([
        // Taken at `now`-ish with the holder's 10 min: far past now + L + L, but its own length says it is not ahead.
        { _id: 'own-long', ...written(now + 600_000, 600_000) },
        // Taken half a lease ahead of the server's time (its clock stepped back since), ending 1.5 L
        // from now: within one of its own past now + L, kept.
        { _id: 'within', ...written(now + L + L / 2, L) },
        // Over one of its own past now + L: taken over.
        { _id: 'beyond', ...written(now + L + 10 * L, L) },
        // Written with no length (an earlier release): the taker's, so over now + 2 L is taken over…
        { _id: 'no-length', ...written(now + 3 * L, null) },
        // …and within it kept (without the $cond the missing length would make every such lease taken).
        { _id: 'no-length-within', ...written(now + 1.5 * L, null) },
        // A stale length from an earlier take (the times do not add up): the taker's length decides.
        { _id: 'stale-length', ...written(now + 3 * L, 600_000, true) },
      ]);
      const take = async (name: string) => (await store.jobs.take(name, 'new', 0, L)) !== null;
      expect({
        'own-long': await take('own-long'),
        within: await take('within'),
        beyond: await take('beyond'),
        'no-length': await take('no-length'),
        'no-length-within': await take('no-length-within'),
        'stale-length': await take('stale-length'),
      }).toEqual({ 'own-long': false, within: false, beyond: true, 'no-length': true, 'no-length-within': false, 'stale-length': true });
      // A refused take leaves the document as it was, byte for byte.
      expect(await leases.findOne({ _id: 'within' })).toEqual({ _id: 'within', ...written(now + L + L / 2, L) });
    } finally {
      await store.close();
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  });
});
