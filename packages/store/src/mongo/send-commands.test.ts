// The commands a live send (and a completion) waits for (message-create.ts createMessage; docs/operations.md, "Commands a send
// waits for"), without a server: stand-in collections that log each command in order. The tenants' `$min`
// is held, so the send must answer before it (noteDue's tenantsSoon).
import { CANCELLED_ATTEMPT_ERROR, newId, PlanLimitError } from '@wirehook/core';
import { MongoServerError, MongoWriteConcernError } from 'mongodb';
import { describe, expect, it, vi } from 'vitest';
import { claimRef } from '../ports/delivery-port.ts';
import type { UsageCounter } from '../ports/message-port.ts';
import type { MongoConnection } from './connection.ts';
import { tenantsLowered } from './due-queue.ts';
import { completeDelivery, plainCompletion } from './delivery-complete.ts';
import { addToRollups, flushRollups } from './endpoint-stats-repo.ts';
import { createMessage } from './message-create.ts';
import { monthOf } from './months.ts';
import { byNextTurn } from '../../test/next-turn.ts';
import { withWarnings } from '../../test/warnings.ts';
import { aSend } from '../../test/mongo/send-input.ts';
import type { NewMessage } from '../ports/message-port.ts';

const NOW = Date.UTC(2026, 11, 2);
const MONTH: UsageCounter = { key: 'live:org_1:2026-12', limit: 1_000, increment: true, expiresAt: Date.UTC(2027, 1, 1) };

function standIn() {
  const log: string[] = [];
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const logged =
    <T>(name: string, answer: T) =>
    async () => (log.push(name), answer);
  const bucket = {
    month: monthOf(NOW),
    messages: { insertOne: logged('messages.insertOne', {}) },
    messageBodies: { insertOne: logged('messageBodies.insertOne', {}) },
    deliveries: { insertMany: logged('deliveries.insertMany', {}) },
  };
  const conn = {
    months: async () => [monthOf(NOW)],
    bucketMonthOf: () => monthOf(NOW),
    bucket: () => bucket,
    bucketOf: () => bucket,
    transaction: async <T>(fn: (session: unknown) => Promise<T>) => {
      const result = await fn({});
      log.push('commit');
      return result;
    },
    counters: {
      updateOne: logged('counters.updateOne', { matchedCount: 1 }),
      find: () => ({ toArray: async () => (log.push('counters.find'), [{ _id: MONTH.key, value: 1, expiresAt: new Date(MONTH.expiresAt) }]) }),
    },
    consumers: { findOne: logged('consumers.findOne', { _id: 'con_1' }) },
    endpoints: { find: () => ({ toArray: async () => (log.push('endpoints.find'), [{ _id: 'ep_1', url: 'https://example.test/hook', status: 'active' }]) }) },
    dueEndpoints: { bulkWrite: logged('dueEndpoints.bulkWrite', { modifiedCount: 0, upsertedCount: 1 }) },
    dueTenants: { bulkWrite: async () => (log.push('dueTenants.bulkWrite'), await held, { modifiedCount: 0, upsertedCount: 1 }) },
    // A completion's rollups, flushed by the test (not by a timer firing in another test file's time).
    endpointRollups: { bulkWrite: async () => ({}) },
  } as unknown as MongoConnection;
  return { conn, log, release };
}

/** A live send of the month's counter. */
const liveSend = (more: Partial<NewMessage> = {}) => aSend(NOW, { counters: [MONTH], ...more });

describe('a live send’s commands (MongoDB)', () => {
  it('seven round trips before its answer: its count beside its consumer’s and endpoints’ reads, then the transaction; the tenant’s $min after', async () => {
    const { conn, log, release } = standIn();
    // The count's increment answers only when the test says: the reads must not wait for it.
    let answerCount = () => {};
    const counted = new Promise<void>((resolve) => (answerCount = resolve));
    const increment = conn.counters.updateOne;
    Object.assign(conn.counters, { updateOne: async (...args: unknown[]) => (await counted, (increment as (...a: unknown[]) => unknown)(...args)) });
    const sending = createMessage(conn, { orgId: 'org_1', env: 'live' } as never, liveSend());
    expect(await byNextTurn(sending)).toBe('waiting');
    // Both reads sent and answered while the count is still out: one round trip's wait, not two more.
    expect(log).toEqual(['consumers.findOne', 'endpoints.find']);
    answerCount();
    // Every stand-in answers within the microtasks: a send still going by the next turn waits for the held $min.
    const created = await byNextTurn(sending);
    expect(created).not.toBe('waiting');
    expect((created as Awaited<typeof sending>).counters).toEqual({ [MONTH.key]: 1 });
    expect(log).toEqual([
      'consumers.findOne',
      'endpoints.find',
      'counters.updateOne',
      'counters.find',
      'messages.insertOne',
      'messageBodies.insertOne',
      'deliveries.insertMany',
      'commit',
      'dueEndpoints.bulkWrite',
      // Sent, not answered: the send answered without waiting for it.
      'dueTenants.bulkWrite',
    ]);
    release();
    await tenantsLowered(conn);
  });

  it('reads its consumer and endpoints on the primary, outside its transaction; a new consumer is made in it, no endpoint read for it', async () => {
    const { conn, release } = standIn();
    const options: unknown[] = [];
    const findOne = conn.consumers.findOne;
    const find = conn.endpoints.find;
    Object.assign(conn.consumers, {
      findOne: async (filter: unknown, o: unknown) => (options.push(o), (findOne as (...a: unknown[]) => unknown)(filter, o)),
    });
    Object.assign(conn.endpoints, { find: (filter: unknown, o: unknown) => (options.push(o), (find as (...a: unknown[]) => unknown)(filter, o)) });
    const sending = createMessage(conn, { orgId: 'org_1', env: 'live' } as never, liveSend());
    await byNextTurn(sending);
    expect(options).toHaveLength(2);
    for (const o of options as { readPreference?: { mode: string } }[]) {
      expect(String(o.readPreference?.mode)).toBe('primary');
      expect(o).not.toHaveProperty('session');
    }
    release();
    await tenantsLowered(conn);

    const fresh = standIn();
    Object.assign(fresh.conn.consumers, {
      findOne: async (_f: unknown, o: { session?: unknown }) => (fresh.log.push(o?.session ? 'consumers.findOne (txn)' : 'consumers.findOne'), null),
      insertOne: async () => (fresh.log.push('consumers.insertOne'), {}),
    });
    const made = createMessage(fresh.conn, { orgId: 'org_1', env: 'live' } as never, liveSend());
    await byNextTurn(made);
    // Made here, it has no endpoint to read: the message is inserted next.
    expect(fresh.log.slice(0, 6)).toEqual([
      'consumers.findOne',
      'counters.updateOne',
      'counters.find',
      'consumers.findOne (txn)',
      'consumers.insertOne',
      'messages.insertOne',
    ]);
    fresh.release();
    await tenantsLowered(fresh.conn);
  });

  /**
   * A stand-in whose consumer and endpoint reads log `(txn)` inside the transaction, and keep what they were sent; the
   * endpoints found have the statuses given.
   */
  const readsLogged = (...statuses: string[]) => {
    const scene = standIn();
    const sent: { name: string; filter: Record<string, unknown>; opts: Record<string, unknown> }[] = [];
    const where = (opts: { session?: unknown } | undefined) => (opts?.session ? ' (txn)' : '');
    Object.assign(scene.conn.consumers, {
      findOne: async (filter: Record<string, unknown>, opts: Record<string, unknown>) => {
        sent.push({ name: `consumers.findOne${where(opts)}`, filter, opts });
        return (scene.log.push(`consumers.findOne${where(opts)}`), { _id: 'con_1' });
      },
    });
    const found = statuses.map((status, i) => ({ _id: `ep_${i + 1}`, url: 'https://example.test/hook', status }));
    Object.assign(scene.conn.endpoints, {
      find: (filter: Record<string, unknown>, opts: Record<string, unknown>) => {
        sent.push({ name: `endpoints.find${where(opts)}`, filter, opts });
        return { toArray: async () => (scene.log.push(`endpoints.find${where(opts)}`), found) };
      },
    });
    return { ...scene, sent };
  };
  const send = (conn: MongoConnection, more: Record<string, unknown> = {}) => createMessage(conn, { orgId: 'org_1', env: 'live' } as never, liveSend(more));

  it('takes an empty read (no endpoint matches): five round trips, nothing read in the transaction', async () => {
    const { conn, log, release } = readsLogged();
    expect(await byNextTurn(send(conn))).toMatchObject({ created: true, deliveryIds: [] });
    expect(log.filter((c) => c.endsWith('(txn)'))).toEqual([]);
    expect(log.slice(log.indexOf('counters.find') + 1)).toEqual(['messages.insertOne', 'messageBodies.insertOne', 'commit']);
    release();
    await tenantsLowered(conn);
  });

  it('one endpoint of several read paused: all read again in the transaction', async () => {
    const { conn, log, release } = readsLogged('active', 'paused');
    await byNextTurn(send(conn));
    expect(log.filter((c) => c.endsWith('(txn)'))).toEqual(['endpoints.find (txn)']);
    release();
    await tenantsLowered(conn);
  });

  it('the consumer as a majority holds it (a racing send’s, rolled back, is not named); the endpoints as the primary has them', async () => {
    const { conn, sent, release } = readsLogged('active');
    await byNextTurn(send(conn));
    const [consumer, endpoints] = sent;
    expect(consumer?.opts).toMatchObject({ readConcern: { level: 'majority' } });
    expect(String((endpoints?.opts as { readPreference?: { mode: string } } | undefined)?.readPreference?.mode)).toBe('primary');
    expect(endpoints?.opts).not.toHaveProperty('readConcern');
    release();
    await tenantsLowered(conn);
  });

  it('a trial send reads its one endpoint by _id before the transaction, and again in it when read paused', async () => {
    const { conn, log, sent, release } = readsLogged('paused');
    await byNextTurn(send(conn, { onlyEndpointId: 'ep_trial' }));
    const trialReads = sent.filter((c) => c.name.startsWith('endpoints.find'));
    expect(trialReads.map((c) => c.name)).toEqual(['endpoints.find', 'endpoints.find (txn)']);
    for (const read of trialReads) {
      expect(read.filter).toMatchObject({ _id: 'ep_trial', consumerId: 'con_1' });
      expect(read.opts).toMatchObject({ hint: { _id: 1 }, comment: 'messages.trialEndpoint' });
    }
    expect(log).toContain('endpoints.find (txn)');
    release();
    await tenantsLowered(conn);
  });

  it('its first run only takes the reads made before it: the driver’s run again (a write conflict, a failover) reads in its snapshot', async () => {
    const { conn, log, release } = readsLogged('active');
    const run = conn.transaction;
    Object.assign(conn, {
      // As withTransaction does: the callback run again after a transient error, its first run's work discarded.
      transaction: async <T>(fn: (session: unknown) => Promise<T>) => {
        await fn({}).then(() => log.push('run again'));
        return (run as (f: typeof fn) => Promise<T>)(fn);
      },
    });
    await byNextTurn(send(conn));
    const committing = log.slice(log.lastIndexOf('run again') + 1, log.lastIndexOf('messages.insertOne'));
    expect(committing.filter((c) => c.endsWith('(txn)'))).toEqual(['consumers.findOne (txn)', 'endpoints.find (txn)']);
    expect(log.slice(0, log.indexOf('run again')).filter((c) => c.endsWith('(txn)'))).toEqual([]);
    release();
    await tenantsLowered(conn);
  });

  it('an endpoint read paused before the transaction is read again in it: a held delivery is decided in the snapshot only', async () => {
    const { conn, log, release } = readsLogged('paused');
    await byNextTurn(send(conn));
    // (The reads and the count interleave; then the transaction reads the endpoints again.)
    expect(log.slice(0, log.indexOf('messages.insertOne'))).toEqual([
      'consumers.findOne',
      'counters.updateOne',
      'endpoints.find',
      'counters.find',
      'endpoints.find (txn)',
    ]);
    release();
    await tenantsLowered(conn);
  });

  it('reads that failed before the transaction are made in it (the driver tries it again); the count stays with the message', async () => {
    const { conn, log, release } = readsLogged('active');
    Object.assign(conn.consumers, {
      findOne: async (_f: unknown, opts: { session?: unknown }) => {
        if (opts?.session === undefined) throw new MongoServerError({ code: 189, errmsg: 'primary stepped down' });
        log.push('consumers.findOne (txn)');
        return { _id: 'con_1' };
      },
    });
    const created = await byNextTurn(send(conn));
    expect(created).toMatchObject({ created: true, counters: { [MONTH.key]: 1 } });
    expect(log.slice(0, log.indexOf('messages.insertOne'))).toEqual(['counters.updateOne', 'counters.find', 'consumers.findOne (txn)', 'endpoints.find (txn)']);
    release();
    await tenantsLowered(conn);
  });

  it('reads before the transaction that keep failing are told once a streak, not once a send', async () => {
    const { conn, release } = readsLogged('active');
    let failing = true;
    const findOne = conn.consumers.findOne;
    Object.assign(conn.consumers, {
      findOne: async (filter: unknown, opts: { session?: unknown }) => {
        if (failing && opts?.session === undefined) throw new MongoServerError({ code: 13, errmsg: 'not authorized on wirehook' });
        return (findOne as (...a: unknown[]) => unknown)(filter, opts);
      },
    });
    const told = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      await send(conn);
      await send(conn);
      expect(told).toHaveBeenCalledTimes(1);
      expect(String(told.mock.calls[0]?.[0])).toContain('not authorized on wirehook');
      failing = false;
      await send(conn);
      failing = true;
      await send(conn);
      expect(told).toHaveBeenCalledTimes(2);
    } finally {
      told.mockRestore();
      release();
      await tenantsLowered(conn);
    }
  });

  it('an organization refused a count: its next send within 1 s pays its count alone, no reads beside it', async () => {
    const { conn, log, release } = readsLogged('active');
    const atLimit = { ...MONTH, key: `live:org_refused_${NOW}:2026-12`, limit: 1 };
    Object.assign(conn.counters, {
      find: () => ({ toArray: async () => (log.push('counters.find'), [{ _id: atLimit.key, value: 2, expiresAt: new Date(atLimit.expiresAt) }]) }),
    });
    const sendAtLimit = () => createMessage(conn, { orgId: 'org_1', env: 'live' } as never, liveSend({ counters: [atLimit] }));
    await expect(sendAtLimit()).rejects.toBeInstanceOf(PlanLimitError);
    expect(log).toContain('consumers.findOne');
    log.splice(0);
    await expect(sendAtLimit()).rejects.toBeInstanceOf(PlanLimitError);
    expect(log.some((c) => c.startsWith('consumers.') || c.startsWith('endpoints.'))).toBe(false);
    release();
    await tenantsLowered(conn);
  });
});

/** A completion against the stand-in: what each command was, in order, `(txn)` when sent in the transaction. */
interface CompletionScene {
  endpoint: { status: string; failingSince: number | null };
  /** The delivery as the fenced write finds it; null when the fence does not hold. */
  before: Record<string, unknown> | null;
  /** When the attempt was made (NOW unless said). */
  attemptAt?: number;
  /** The delivery is gone (its month dropped): the count's update matches nothing. */
  gone?: boolean;
  /** The claim's hint that the delivery is ordered. */
  ordered?: boolean;
  /** What the attempt's insert throws, if anything; likewise the plain write. */
  insertThrows?: Error;
  plainWriteThrows?: Error;
  /** The endpoint's read outside the transaction fails: true, as a failover does, or with this error. */
  endpointReadThrows?: boolean | Error;
  /** The endpoint's write outside the transaction (a plain completion's streak) fails: true, as a failover does, or with this error. */
  streakWriteThrows?: boolean | Error;
  /** Whether a streak's conditional write finds the endpoint as read (false: another completion moved it first). */
  streakSetMatches?: boolean;
  /** A streak's start (its transaction's write of the endpoint) fails. */
  streakStartThrows?: boolean;
  /** Held until it settles: the endpoint's read and the attempt's insert both wait for it before answering. */
  gate?: Promise<void>;
  /** Held until it settles: the endpoint's write outside the transaction (a plain success's streak clear). */
  streakWriteGate?: Promise<void>;
  /** The endpoint's newest attempts as a disabling's check reads them (streak-guard.ts), newest first. */
  attemptsInStreak?: { _id: string; at: number; responseStatus: number | null; error: string | null }[];
  /** Months kept (conn.months()), one when not said. */
  monthsKept?: number;
  /** The endpoint as the transaction's snapshot shows it, when not as read before it (`endpoint`). */
  endpointInTransaction?: Record<string, unknown> | null;
  /** The bucket start of the newest rollup that counted a success, by grain (none when not said). */
  succeededRollup?: Partial<Record<number, number>>;
  /** How many times the transaction runs its function (a rerun after a transient error): once when not said. */
  transactionRuns?: number;
}

function completionStandIn(o: CompletionScene) {
  const { conn, log, release } = standIn();
  const deliveryId = newId('delivery', { now: () => NOW });
  const messageId = newId('message', { now: () => NOW });
  const filters: Record<string, unknown>[] = [];
  /** Each command's options (its last argument), by the name logged. */
  const options = new Map<string, unknown>();
  /** The delivery's updates (findOneAndUpdate's pipelines), in order. */
  const updates: unknown[] = [];
  /** The attempt's writes again in the transaction (an unconfirmed insert's). */
  const attemptUpserts: { filter: unknown; update: unknown }[] = [];
  /** Every command's filter and update, by the name logged. */
  const sent: { name: string; filter: Record<string, unknown>; update: unknown }[] = [];
  /** The limits the attempts' reads were sent with. */
  const limits: number[] = [];
  /** The attempts' reads under way at once, now and at most (a transaction's operations are sequential). */
  const reading = { now: 0, most: 0 };
  if (o.monthsKept !== undefined) Object.assign(conn, { months: async () => Array.from({ length: o.monthsKept! }, () => monthOf(NOW)) });
  const named =
    <T>(name: string, answer: (filter: Record<string, unknown>) => T) =>
    async (filter: Record<string, unknown>, ...rest: { session?: unknown }[]) => {
      const logged = rest.some((r) => r?.session !== undefined) ? `${name} (txn)` : name;
      log.push(logged);
      sent.push({ name: logged, filter, update: rest[0] });
      options.set(logged, rest[rest.length - 1]);
      if (name === 'deliveries.findOneAndUpdate') {
        filters.push(filter);
        updates.push(rest[0]);
      }
      if (name === 'attempts.updateOne') attemptUpserts.push({ filter, update: rest[0] });
      if ((logged === 'attempts.insertOne' || logged === 'endpoints.findOne') && o.gate) await o.gate;
      if (logged === 'attempts.insertOne' && o.insertThrows) throw o.insertThrows;
      if (logged === 'endpoints.findOne' && o.endpointReadThrows) {
        throw o.endpointReadThrows === true ? new MongoServerError({ code: 189, errmsg: 'primary stepped down' }) : o.endpointReadThrows;
      }
      if (logged === 'deliveries.findOneAndUpdate' && o.plainWriteThrows) throw o.plainWriteThrows;
      if (logged === 'endpoints.updateOne (txn)' && o.streakStartThrows) throw new MongoServerError({ code: 189, errmsg: 'primary stepped down' });
      if (logged === 'endpoints.updateOne' && o.streakWriteGate) await o.streakWriteGate;
      if (logged === 'endpoints.updateOne' && o.streakWriteThrows) {
        throw o.streakWriteThrows === true ? new MongoServerError({ code: 189, errmsg: 'primary stepped down' }) : o.streakWriteThrows;
      }
      return answer(filter);
    };
  /** The rollups' increments flushed (endpoint_rollups' bulk writes' `$inc`s). */
  const rolledUp: unknown[] = [];
  if (o.transactionRuns !== undefined) {
    Object.assign(conn, {
      transaction: async <T>(fn: (session: unknown) => Promise<T>) => {
        for (let run = 1; run < o.transactionRuns!; run++) await fn({});
        const result = await fn({});
        log.push('commit');
        return result;
      },
    });
  }
  Object.assign(conn.endpoints, {
    findOne: async (filter: Record<string, unknown>, ...rest: { session?: unknown }[]) => {
      const inTransaction = rest.some((r) => r?.session !== undefined) && o.endpointInTransaction !== undefined;
      return named('endpoints.findOne', () => (inTransaction ? o.endpointInTransaction : o.endpoint))(filter, ...rest);
    },
    updateOne: named('endpoints.updateOne', () =>
      o.streakSetMatches === false ? { matchedCount: 0, modifiedCount: 0 } : { matchedCount: 1, modifiedCount: 1 },
    ),
  });
  Object.assign(conn.bucketOf(deliveryId), {
    deliveries: {
      // The plain path's filter asks for an unordered delivery: an ordered one does not match it.
      findOneAndUpdate: named('deliveries.findOneAndUpdate', (f) =>
        o.before === null || ('orderingKey' in f && o.before.orderingKey) ? null : { messageId, ...o.before },
      ),
      updateOne: named('deliveries.updateOne', () => ({ matchedCount: o.gone ? 0 : 1 })),
    },
    attempts: {
      insertOne: named('attempts.insertOne', () => ({})),
      updateOne: named('attempts.updateOne', () => ({ matchedCount: 0, upsertedCount: 1 })),
      find: (filter: Record<string, unknown>, findOptions: { session?: unknown }) => {
        const logged = findOptions?.session !== undefined ? 'attempts.find (txn)' : 'attempts.find';
        log.push(logged);
        sent.push({ name: logged, filter, update: undefined });
        options.set(logged, findOptions);
        reading.now++;
        reading.most = Math.max(reading.most, reading.now);
        const toArray = async () => {
          await Promise.resolve();
          reading.now--;
          limits.push(n);
          return (o.attemptsInStreak ?? []).slice(0, n);
        };
        let n = 0;
        return { limit: (limit: number) => ((n = limit), { toArray }) };
      },
    },
    messages: { updateOne: named('messages.updateOne', () => ({ matchedCount: 1 })) },
  });
  Object.assign(conn, {
    deliveryLanes: { findOne: named('deliveryLanes.findOne', () => null) },
    // A disabling's walk of the endpoint's other open deliveries, recorded in its transaction.
    endpointWalks: {
      updateOne: named('endpointWalks.updateOne', () => ({ matchedCount: 0, upsertedCount: 1 })),
      findOneAndUpdate: named('endpointWalks.findOneAndUpdate', () => null),
    },
    alertEvents: {
      findOne: named('alertEvents.findOne', () => null),
      insertOne: named('alertEvents.insertOne', () => ({})),
      updateOne: named('alertEvents.updateOne', () => ({ matchedCount: 0, upsertedCount: 1 })),
    },
    endpointRollups: {
      findOne: named('endpointRollups.findOne', (f) => {
        const at = o.succeededRollup?.[f['grainMs'] as number];
        const range = f['at'] as { $gte: number; $lte: number };
        return at !== undefined && at >= range.$gte && at <= range.$lte ? { at } : null;
      }),
      bulkWrite: async (ops: { updateOne: { update: { $inc: unknown } } }[]) => (rolledUp.push(...ops.map((op) => op.updateOne.update.$inc)), {}),
    },
  });
  const attempt = {
    id: newId('attempt', { now: () => NOW }),
    deliveryId,
    endpointId: 'ep_1' as never,
    at: o.attemptAt ?? NOW,
    responseStatus: 500,
    responseHead: null,
    durationMs: 12,
    error: null,
    via: 'direct',
    sourceIp: null,
    url: 'https://example.test/hook',
  };
  const claim = { tenant: { orgId: 'org_1', env: 'live' }, deliveryId, endpointId: 'ep_1', leaseToken: 1, ...(o.ordered ? { ordered: true } : {}) };
  let completing: Promise<unknown> = Promise.resolve();
  const complete = async (outcome: Record<string, unknown>) => {
    completing = completeDelivery(conn, claim as never, { attempt, countsTowardPolicy: true, ...outcome } as never).catch((err: unknown) => ({
      failed: err,
    }));
    const completed = await byNextTurn(completing);
    release();
    await tenantsLowered(conn);
    await flushRollups(conn);
    return completed;
  };
  /** The last completion to its end (one a gate held), its rollups flushed. */
  const finish = async () => {
    const completed = await completing;
    await tenantsLowered(conn);
    await flushRollups(conn);
    return completed;
  };
  /** A completion of the same claim with the attempt made at `at`, not waited for (several may overlap). */
  const completeAt = (at: number, outcome: Record<string, unknown>) =>
    completeDelivery(conn, claim as never, { attempt: { ...attempt, at }, countsTowardPolicy: true, ...outcome } as never);
  return { conn, log, filters, options, updates, attemptUpserts, sent, rolledUp, complete, finish, completeAt, limits, reading };
}

const RETRY = { status: 'retrying', nextAttemptAt: NOW + 5_000, endpoint: { succeeded: false } };
const SUCCESS = { status: 'success', nextAttemptAt: null, endpoint: { succeeded: true } };
const OPEN_PENDING = { status: 'pending', resend: false, endpointId: 'ep_1', orderingKey: null, attemptCount: 0, held: false };

const inserted = (log: string[]) => log.filter((c) => c.startsWith('attempts.insertOne'));
/** A majority not confirming in 10 s; `reply`: what a findAndModify's reply carries besides (its `value`). */
const unconfirmed = (reply: { value?: unknown } = {}) =>
  new MongoWriteConcernError({ ok: 1, ...reply, writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' } } as never);

describe('a completion’s commands (MongoDB)', () => {
  it('a plain one (a failing endpoint’s retry): its attempt, then its delivery, no transaction; answered after its due entry, not its tenant’s', async () => {
    const { log, filters, options, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: NOW - 1_000 }, before: OPEN_PENDING });
    const completed = await complete(RETRY);
    expect(completed).toMatchObject({ applied: true, endpointDisabled: false });
    expect(log).toEqual([
      'endpoints.findOne',
      'attempts.insertOne',
      'deliveries.findOneAndUpdate',
      'dueEndpoints.bulkWrite',
      'dueTenants.bulkWrite',
      // The message's status follows the due entry without waiting for the tenant's bound.
      'messages.updateOne',
      'deliveries.updateOne',
    ]);
    // Fenced as the transaction's is (lease token, open), and unordered: a lane's hand-over needs the transaction.
    expect(filters[0]).toMatchObject({ _id: expect.any(String), leaseToken: 1, orderingKey: null, status: { $in: ['pending', 'retrying'] } });
    // Both writes confirmed by a majority within a commit's 10 s (plan.ts, COMPLETED_BY_MAJORITY); the endpoint read on the primary.
    const majority = { w: 'majority', wtimeoutMS: 10_000 };
    expect(options.get('attempts.insertOne')).toMatchObject({ writeConcern: majority, comment: 'attempts.record' });
    expect(options.get('deliveries.findOneAndUpdate')).toMatchObject({
      writeConcern: majority,
      returnDocument: 'before',
      hint: { _id: 1 },
      comment: 'deliveries.currentUnordered',
    });
    const endpointRead = options.get('endpoints.findOne') as { readPreference?: { mode: string }; hint?: unknown; comment?: string };
    expect(String(endpointRead.readPreference?.mode)).toBe('primary');
    // A majority's, as a transaction's snapshot: a streak or a pause a failover rolls back is not acted on.
    // Its newest (not a majority's, which would lag a streak just begun).
    expect(endpointRead).toMatchObject({ hint: { _id: 1 }, comment: 'deliveries.endpointAtCompletion' });
    expect(endpointRead).not.toHaveProperty('readConcern');
  });

  it('sends the endpoint’s read and the attempt’s insert at once: one round trip’s wait for both', async () => {
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { log, complete, finish } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING, gate });
    expect(await complete(SUCCESS)).toBe('waiting');
    expect(log).toEqual(['endpoints.findOne', 'attempts.insertOne']);
    open();
    expect(await finish()).toMatchObject({ applied: true });
  });

  it('a dispatcher whose clock is still in the month before its delivery’s: the attempt is written first all the same', async () => {
    const scene = { endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING, attemptAt: Date.UTC(2026, 10, 30, 23, 59) };
    const { log, complete } = completionStandIn(scene);
    expect(await complete(SUCCESS)).toMatchObject({ applied: true });
    expect(log.slice(0, 3)).toEqual(['endpoints.findOne', 'attempts.insertOne', 'deliveries.findOneAndUpdate']);
  });

  it('a plain success notes nothing due', async () => {
    const { log, rolledUp, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING });
    expect(await complete(SUCCESS)).toMatchObject({ applied: true });
    expect(log).toEqual(['endpoints.findOne', 'attempts.insertOne', 'deliveries.findOneAndUpdate', 'messages.updateOne', 'deliveries.updateOne']);
    // Counted once, at its record (one increment a grain, each of one attempt).
    expect(rolledUp.length).toBeGreaterThan(0);
    for (const inc of rolledUp) expect(inc).toMatchObject({ attempts: 1 });
  });

  it('a plain retry of a delivery a pause held during its send stays out of the due queue', async () => {
    const { log, updates, complete } = completionStandIn({
      endpoint: { status: 'active', failingSince: NOW - 1_000 },
      before: { ...OPEN_PENDING, held: true },
    });
    expect(await complete(RETRY)).toMatchObject({ applied: true });
    expect(log).not.toContain('dueEndpoints.bulkWrite');
    // The delivery's own `held` kept (a boolean: the due index's filter is `held: false`), not the endpoint's read.
    expect(updates[0]).toEqual([{ $set: expect.objectContaining({ held: { $eq: ['$held', true] } }) }]);
  });

  it('an attempt a majority did not confirm in 10 s fails nothing: the transaction writes it again under its commit’s majority', async () => {
    const { log, options, attemptUpserts, complete } = completionStandIn({
      endpoint: { status: 'active', failingSince: null },
      before: OPEN_PENDING,
      insertThrows: unconfirmed(),
    });
    expect(await complete(SUCCESS)).toMatchObject({ applied: true });
    // Not the plain write: a failover between it and the unconfirmed attempt could keep the state without the attempt.
    expect(log.slice(0, 6)).toEqual([
      'endpoints.findOne',
      'attempts.insertOne',
      'endpoints.findOne (txn)',
      'deliveries.findOneAndUpdate (txn)',
      'attempts.updateOne (txn)',
      'commit',
    ]);
    // An upsert by _id that inserts only where the first insert did not stand (its _id from the filter).
    expect(options.get('attempts.updateOne (txn)')).toMatchObject({ upsert: true, hint: { _id: 1 }, comment: 'deliveries.attemptById' });
    const [upsert] = attemptUpserts as { filter: { _id: string }; update: { $setOnInsert: Record<string, unknown> } }[];
    expect(Object.keys(upsert?.update ?? {})).toEqual(['$setOnInsert']);
    expect(upsert?.filter).toEqual({ _id: expect.stringMatching(/^att_/) });
    expect(upsert?.update.$setOnInsert).toMatchObject({ deliveryId: expect.any(String), orgId: 'org_1', at: NOW });
    expect(upsert?.update.$setOnInsert).not.toHaveProperty('_id');
  });

  it('an unconfirmed attempt of a claim no longer current is written again with the count', async () => {
    const { log, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: null, insertThrows: unconfirmed() });
    expect(await complete(SUCCESS)).toMatchObject({ applied: false });
    expect(log).toContain('attempts.updateOne (txn)');
  });

  it('a write-concern error that also refused the insert (a duplicate) is no unconfirmed attempt: the completion fails', async () => {
    const refused = new MongoWriteConcernError({
      ok: 1,
      writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' },
      writeErrors: [{ index: 0, code: 11000, errmsg: 'E11000 duplicate key error' }],
    } as never);
    const { log, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING, insertThrows: refused });
    expect(await complete(SUCCESS)).toEqual({ failed: refused });
    expect(log.some((c) => c.startsWith('deliveries.findOneAndUpdate'))).toBe(false);
  });

  it('a write-concern error other than a majority’s wait run out (100: one the set cannot satisfy) fails the completion', async () => {
    const unsatisfiable = new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 100, errmsg: 'Not enough data-bearing nodes' } } as never);
    const { log, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING, insertThrows: unsatisfiable });
    expect(await complete(SUCCESS)).toEqual({ failed: unsatisfiable });
    expect(log.some((c) => c.startsWith('deliveries.findOneAndUpdate'))).toBe(false);
  });

  it('an endpoint not read (a failover) makes no plain completion: the transaction reads it in its snapshot', async () => {
    const { log, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING, endpointReadThrows: true });
    await withWarnings(async (warnings) => {
      expect(await complete(SUCCESS)).toMatchObject({ applied: true });
      await new Promise((resolve) => setImmediate(resolve));
      // Told: every completion takes the transaction while it fails.
      expect(warnings.filter((w) => w.includes("a completion's endpoint read failed"))).toHaveLength(1);
    });
    expect(log.slice(0, 4)).toEqual(['endpoints.findOne', 'attempts.insertOne', 'endpoints.findOne (txn)', 'deliveries.findOneAndUpdate (txn)']);
  });

  it('an endpoint not read for an overload (a newer server refusing work) fails the completion, with no transaction to add to the load', async () => {
    const refused = new MongoServerError({ code: 462, errmsg: 'ingress request rate limit exceeded' });
    refused.addErrorLabel('SystemOverloadedError');
    refused.addErrorLabel('RetryableError');
    const { log, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING, endpointReadThrows: refused });
    expect(await complete(SUCCESS)).toEqual({ failed: refused });
    // The attempt's insert, made beside the read, settled before the completion failed: nothing left running.
    expect(log).toEqual(['endpoints.findOne', 'attempts.insertOne']);
  });

  it('an attempt refused (not merely unconfirmed) fails the completion before its delivery is written', async () => {
    const refused = new MongoServerError({ code: 13, errmsg: 'not authorized' });
    const { log, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING, insertThrows: refused });
    expect(await complete(SUCCESS)).toEqual({ failed: refused });
    expect(log.some((c) => c.startsWith('deliveries.findOneAndUpdate'))).toBe(false);
  });

  it('a plain write a majority did not confirm in 10 s: its retry noted, not waited for; its message left to the healer; the completion fails', async () => {
    // The primary applied it; the reply (in the write-concern error) carries the delivery as it was.
    const applied = unconfirmed({ value: { messageId: 'msg_1', ...OPEN_PENDING } });
    const { log, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: NOW - 1_000 }, before: OPEN_PENDING, plainWriteThrows: applied });
    expect(await complete(RETRY)).toEqual({ failed: applied });
    // No message result from a write a failover may roll back: the flag stays for the healer, which reads the delivery as it stands.
    expect(log).toEqual(['endpoints.findOne', 'attempts.insertOne', 'deliveries.findOneAndUpdate', 'dueEndpoints.bulkWrite', 'dueTenants.bulkWrite']);
  });

  it('a write-concern error that is no timeout (a majority unsatisfiable) fails the completion with nothing after it, its reply or not', async () => {
    const unsatisfiable = new MongoWriteConcernError({
      ok: 1,
      value: { messageId: 'msg_1', ...OPEN_PENDING },
      writeConcernError: { code: 100, errmsg: 'Not enough data-bearing nodes' },
    } as never);
    const { log, complete } = completionStandIn({
      endpoint: { status: 'active', failingSince: NOW - 1_000 },
      before: OPEN_PENDING,
      plainWriteThrows: unsatisfiable,
    });
    expect(await complete(RETRY)).toEqual({ failed: unsatisfiable });
    expect(log).toEqual(['endpoints.findOne', 'attempts.insertOne', 'deliveries.findOneAndUpdate']);
  });

  it('an unconfirmed plain write that matched nothing (no delivery in its reply) is not applied; no transaction waits on the majority', async () => {
    const none = unconfirmed({ value: null });
    const { log, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: NOW - 1_000 }, before: null, plainWriteThrows: none });
    expect(await complete(RETRY)).toEqual({ applied: false, endpointDisabled: false });
    expect(log).toEqual(['endpoints.findOne', 'attempts.insertOne', 'deliveries.findOneAndUpdate']);
  });

  it('an unconfirmed plain write of a first failure that matched nothing (its lease ran out) begins no streak', async () => {
    const { log, complete } = completionStandIn({
      endpoint: { status: 'active', failingSince: null },
      before: null,
      plainWriteThrows: unconfirmed({ value: null }),
    });
    expect(await complete(RETRY)).toEqual({ applied: false, endpointDisabled: false });
    expect(log).toEqual(['endpoints.findOne', 'attempts.insertOne', 'deliveries.findOneAndUpdate']);
  });

  it('a reply that says neither (no `value`) fails the completion with nothing after it', async () => {
    const bare = unconfirmed();
    const { log, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: NOW - 1_000 }, before: OPEN_PENDING, plainWriteThrows: bare });
    expect(await complete(RETRY)).toEqual({ failed: bare });
    expect(log).toEqual(['endpoints.findOne', 'attempts.insertOne', 'deliveries.findOneAndUpdate']);
  });

  it('an attempt recorded counts in the rollups though the delivery’s write then fails', async () => {
    const lost = new MongoServerError({ code: 11602, errmsg: 'interrupted due to repl state change' });
    const { rolledUp, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING, plainWriteThrows: lost });
    expect(await complete(SUCCESS)).toEqual({ failed: lost });
    expect(rolledUp).toEqual(expect.arrayContaining([expect.objectContaining({ attempts: 1 })]));
  });

  it('one that ends a streak is plain: the streak cleared where it began at or before the success, then the delivery written — no transaction', async () => {
    const { log, sent, options, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: NOW - 60_000 }, before: OPEN_PENDING });
    expect(await complete(SUCCESS)).toMatchObject({ applied: true });
    // The clear first: a death between the two leaves the delivery leased and sent again, never a success whose clear was lost.
    expect(log).toEqual([
      'endpoints.findOne',
      'attempts.insertOne',
      'endpoints.updateOne',
      'deliveries.findOneAndUpdate',
      'messages.updateOne',
      'deliveries.updateOne',
    ]);
    // Conditional: of two successes racing, one writes; a success that outlived its lease ends no streak begun after it.
    expect(sent.find((c) => c.name === 'endpoints.updateOne')).toEqual({
      name: 'endpoints.updateOne',
      filter: { orgId: 'org_1', env: 'live', _id: 'ep_1', failingSince: { $lte: NOW } },
      update: { $set: { failingSince: null } },
    });
    // With a time limit (POINT_OP_MS and the majority's 10 s, which maxTimeMS counts): the endpoint's successes that
    // come meanwhile wait on it.
    expect(options.get('endpoints.updateOne')).toMatchObject({
      writeConcern: { w: 'majority', wtimeoutMS: 10_000 },
      maxTimeMS: 15_000,
      comment: 'deliveries.streakEnd',
    });
  });

  it('a drain’s successes that finish while one clear is out share the next: two writes of the endpoint, not one a success', async () => {
    let open = () => {};
    const streakWriteGate = new Promise<void>((resolve) => (open = resolve));
    const scene = { endpoint: { status: 'active', failingSince: NOW - 60_000 }, before: OPEN_PENDING, streakWriteGate };
    const { log, sent, completeAt } = completionStandIn(scene);
    // Eight successes of one endpoint, each having read the streak before any clear landed.
    const completions = Array.from({ length: 8 }, (_, i) => completeAt(NOW + i, SUCCESS));
    expect(await byNextTurn(Promise.all(completions))).toBe('waiting');
    expect(log.filter((c) => c === 'endpoints.updateOne')).toHaveLength(1);
    // No delivery written before its clear is answered.
    expect(log).not.toContain('deliveries.findOneAndUpdate');
    open();
    const completed = await Promise.all(completions);
    expect(completed.every((c) => c.applied)).toBe(true);
    const clears = sent.filter((c) => c.name === 'endpoints.updateOne').map((c) => c.filter['failingSince']);
    // The first at its own time; the seven after it in one, at the latest of theirs.
    expect(clears).toEqual([{ $lte: NOW }, { $lte: NOW + 7 }]);
    expect(log.filter((c) => c === 'deliveries.findOneAndUpdate')).toHaveLength(8);
    expect(log).not.toContain('commit');
  });

  it('successes waiting behind a clear a majority did not confirm go to their transactions at once, with no write of their own first', async () => {
    let open = () => {};
    const streakWriteGate = new Promise<void>((resolve) => (open = resolve));
    const scene = { endpoint: { status: 'active', failingSince: NOW - 60_000 }, before: OPEN_PENDING, streakWriteGate, streakWriteThrows: unconfirmed() };
    const { log, completeAt } = completionStandIn(scene);
    const completions = Array.from({ length: 4 }, (_, i) => completeAt(NOW + i, SUCCESS));
    await byNextTurn(Promise.all(completions));
    open();
    expect((await Promise.all(completions)).every((c) => c.applied)).toBe(true);
    expect(log.filter((c) => c === 'endpoints.updateOne')).toHaveLength(1);
    expect(log.filter((c) => c === 'commit')).toHaveLength(4);
  });

  it('a clear never answered (a connection dead without closing) is taken for unconfirmed after 20 s: the completion goes to its transaction', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const never = new Promise<void>(() => {});
      const { log, completeAt } = completionStandIn({
        endpoint: { status: 'active', failingSince: NOW - 60_000 },
        before: OPEN_PENDING,
        streakWriteGate: never,
      });
      const completing = completeAt(NOW, SUCCESS);
      await vi.advanceTimersByTimeAsync(19_999);
      expect(log).not.toContain('commit');
      await vi.advanceTimersByTimeAsync(1);
      expect(await completing).toMatchObject({ applied: true });
      expect(log).toContain('endpoints.updateOne (txn)');
      expect(log).toContain('commit');
    } finally {
      vi.useRealTimers();
    }
  });

  it('a clear a majority did not confirm in 10 s sends the completion to the transaction, which clears again under its commit', async () => {
    const scene = { endpoint: { status: 'active', failingSince: NOW - 60_000 }, before: OPEN_PENDING, streakWriteThrows: unconfirmed() };
    const { log, sent, complete } = completionStandIn(scene);
    expect(await complete(SUCCESS)).toMatchObject({ applied: true });
    // Not the plain write: a failover (or the endpoint's own shard) could lose the clear behind a delivery confirmed after it.
    expect(log).not.toContain('deliveries.findOneAndUpdate');
    expect(log.slice(0, 6)).toEqual([
      'endpoints.findOne',
      'attempts.insertOne',
      'endpoints.updateOne',
      'endpoints.findOne (txn)',
      'deliveries.findOneAndUpdate (txn)',
      'endpoints.updateOne (txn)',
    ]);
    expect(log).toContain('commit');
    expect(sent.find((c) => c.name === 'endpoints.updateOne (txn)')?.filter).toEqual({
      orgId: 'org_1',
      env: 'live',
      _id: 'ep_1',
      failingSince: { $lte: NOW },
    });
  });

  it('an unconfirmed clear of a success whose claim ran out is cleared again in the transaction that finds its delivery moved on', async () => {
    const scene = { endpoint: { status: 'active', failingSince: NOW - 60_000 }, before: null, streakWriteThrows: unconfirmed() };
    const { log, sent, complete } = completionStandIn(scene);
    expect(await complete(SUCCESS)).toMatchObject({ applied: false });
    expect(sent.filter((c) => c.name === 'endpoints.updateOne (txn)').map((c) => c.filter)).toEqual([
      { orgId: 'org_1', env: 'live', _id: 'ep_1', failingSince: { $lte: NOW } },
    ]);
    expect(log).toContain('commit');
  });

  it('a success through the transaction (an ordered delivery) clears only a streak begun at or before it', async () => {
    const scene = { endpoint: { status: 'active', failingSince: NOW - 60_000 }, before: { ...OPEN_PENDING, orderingKey: 'order-1' }, ordered: true };
    const { sent, complete } = completionStandIn(scene);
    expect(await complete(SUCCESS)).toMatchObject({ applied: true });
    expect(sent.filter((c) => c.name === 'endpoints.updateOne (txn)').map((c) => c.filter)).toEqual([
      { orgId: 'org_1', env: 'live', _id: 'ep_1', failingSince: { $lte: NOW } },
    ]);
  });

  it('a streak’s start that fails after the delivery’s write is told; the completion stands (the next failure begins it)', async () => {
    const scene = { endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING, streakStartThrows: true };
    const { complete } = completionStandIn(scene);
    await withWarnings(async (warnings) => {
      expect(await complete(RETRY)).toMatchObject({ applied: true });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.some((w) => w.includes('beginning the failure streak of endpoint ep_1'))).toBe(true);
    });
  });

  it('an unconfirmed plain write of a first failure begins the streak all the same (it stands on the primary), then fails', async () => {
    const applied = unconfirmed({ value: { messageId: 'msg_1', ...OPEN_PENDING } });
    const { log, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING, plainWriteThrows: applied });
    expect(await complete(RETRY)).toEqual({ failed: applied });
    expect(log).toContain('endpoints.updateOne (txn)');
  });

  it('one that begins a streak is plain: the delivery written, then the streak set and its failing event queued in a transaction of their own', async () => {
    const { log, sent, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING });
    expect(await complete(RETRY)).toMatchObject({ applied: true });
    expect(log).toEqual([
      'endpoints.findOne',
      'attempts.insertOne',
      'deliveries.findOneAndUpdate',
      'dueEndpoints.bulkWrite',
      'dueTenants.bulkWrite',
      'endpoints.updateOne (txn)',
      'alertEvents.findOne (txn)',
      'alertEvents.insertOne (txn)',
      'commit',
      'messages.updateOne',
      'deliveries.updateOne',
    ]);
    expect(sent.find((c) => c.name === 'endpoints.updateOne (txn)')).toMatchObject({
      filter: { orgId: 'org_1', env: 'live', _id: 'ep_1', failingSince: null },
      update: { $set: { failingSince: NOW } },
    });
  });

  it('a first failure that lost the race to begin the streak queues no second failing event', async () => {
    const { log, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING, streakSetMatches: false });
    expect(await complete(RETRY)).toMatchObject({ applied: true });
    expect(log.filter((c) => c.includes('(txn)') || c === 'commit')).toEqual(['endpoints.updateOne (txn)', 'commit']);
  });

  it('a failure whose claim ran out begins no streak: dated before the success that beat it, nothing would end it', async () => {
    const { log, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: null });
    expect(await complete(RETRY)).toMatchObject({ applied: false });
    expect(log.filter((c) => c.startsWith('endpoints.updateOne') || c.startsWith('alertEvents'))).toEqual([]);
  });

  it('a streak’s clear refused fails the completion before its delivery is written (sent again); one an election stopped goes to the transaction', async () => {
    const refused = new MongoServerError({ code: 13, errmsg: 'not authorized' });
    const denied = completionStandIn({ endpoint: { status: 'active', failingSince: NOW - 60_000 }, before: OPEN_PENDING, streakWriteThrows: refused });
    expect(await denied.complete(SUCCESS)).toEqual({ failed: refused });
    expect(denied.log).toEqual(['endpoints.findOne', 'attempts.insertOne', 'endpoints.updateOne']);
    // A failover (189, primary stepped down): the transaction retries through the election and clears again under its commit.
    const lost = completionStandIn({ endpoint: { status: 'active', failingSince: NOW - 60_000 }, before: OPEN_PENDING, streakWriteThrows: true });
    expect(await lost.complete(SUCCESS)).toMatchObject({ applied: true });
    expect(lost.log.slice(0, 5)).toEqual([
      'endpoints.findOne',
      'attempts.insertOne',
      'endpoints.updateOne',
      'endpoints.findOne (txn)',
      'deliveries.findOneAndUpdate (txn)',
    ]);
    expect(lost.log).toContain('endpoints.updateOne (txn)');
    // An overload's — a newer server refusing work (462, after the driver's own retries), or mongos's time limit (262,
    // a shard stepping down makes it too): no second round of work in a transaction; the completion fails.
    const refusedWork = new MongoServerError({ code: 462, errmsg: 'ingress request rate limit exceeded' });
    refusedWork.addErrorLabel('SystemOverloadedError');
    refusedWork.addErrorLabel('RetryableError');
    const timedOut = new MongoServerError({ code: 262, errmsg: 'operation exceeded time limit' });
    timedOut.addErrorLabel('RetryableWriteError');
    for (const slow of [refusedWork, timedOut]) {
      const overloaded = completionStandIn({ endpoint: { status: 'active', failingSince: NOW - 60_000 }, before: OPEN_PENDING, streakWriteThrows: slow });
      expect(await overloaded.complete(SUCCESS)).toEqual({ failed: slow });
      expect(overloaded.log).toEqual(['endpoints.findOne', 'attempts.insertOne', 'endpoints.updateOne']);
    }
  });

  it('one that disables its endpoint, or whose delivery fails for good, still goes through the transaction', async () => {
    const failing = { status: 'active', failingSince: NOW - 6 * 86_400_000 };
    const disabling = completionStandIn({ endpoint: failing, before: OPEN_PENDING });
    await disabling.complete({ ...RETRY, endpoint: { succeeded: false, disableIfFailingSince: NOW - 5 * 86_400_000, disabledReason: 'failing_5_days' } });
    expect(disabling.log).not.toContain('deliveries.findOneAndUpdate');
    expect(disabling.log).toContain('deliveries.findOneAndUpdate (txn)');
    const exhausted = completionStandIn({ endpoint: failing, before: OPEN_PENDING });
    await exhausted.complete({ status: 'failed', nextAttemptAt: null, endpoint: { succeeded: false } });
    expect(exhausted.log).toContain('alertEvents.insertOne (txn)');
    expect(exhausted.log).toContain('commit');
  });

  describe('a disabling checked against the endpoint’s newest attempts first (streak-guard.ts)', () => {
    const DAY = 86_400_000;
    const FAILING_5_DAYS = { ...RETRY, endpoint: { succeeded: false, disableIfFailingSince: NOW - 5 * DAY, disabledReason: 'failing_5_days' } };
    const failed = (at: number) => ({ _id: `att_${at}`, at, responseStatus: 500, error: null });
    const succeeded = (at: number) => ({ _id: `att_${at}`, at, responseStatus: 204, error: null });

    it('a success since the streak began (its clear lost): read before the transaction, every month at once; the streak begun again in it', async () => {
      const scene = {
        endpoint: { status: 'active', failingSince: NOW - 6 * DAY },
        before: OPEN_PENDING,
        attemptsInStreak: [failed(NOW), failed(NOW - 20_000), succeeded(NOW - 30_000), failed(NOW - 6 * DAY)],
      };
      const { log, sent, options, limits, reading, complete } = completionStandIn({ ...scene, monthsKept: 3 });
      expect(await complete(FAILING_5_DAYS)).toMatchObject({ applied: true, endpointDisabled: false });
      // Before the transaction (which would hold the delivery's write meanwhile), on the primary: the endpoint's attempts
      // since its streak's start (later ones too), newest first, in each month kept, the months at once.
      expect(log.indexOf('attempts.find')).toBeLessThan(log.indexOf('deliveries.findOneAndUpdate (txn)'));
      expect(log.filter((c) => c.startsWith('attempts.find'))).toEqual(['attempts.find', 'attempts.find', 'attempts.find']);
      expect(sent.find((c) => c.name === 'attempts.find')?.filter).toEqual({ orgId: 'org_1', env: 'live', endpointId: 'ep_1', at: { $gt: NOW - 6 * DAY } });
      expect(reading.most).toBe(3);
      expect(options.get('attempts.find')).toMatchObject({
        sort: { at: -1, _id: -1 },
        hint: { orgId: 1, env: 1, endpointId: 1, at: -1, _id: -1 },
        comment: 'deliveries.attemptsInStreak',
        readPreference: { mode: 'primary' },
        maxTimeMS: 5_000,
      });
      expect(limits).toEqual([64, 64, 64]);
      // A success among them: no rollup read.
      expect(log).not.toContain('endpointRollups.findOne');
      // The streak from the first attempt after the success, where it is still the one read; no disabling, no alert.
      const endpointWrites = sent.filter((c) => c.name === 'endpoints.updateOne (txn)');
      expect(endpointWrites).toEqual([
        {
          name: 'endpoints.updateOne (txn)',
          filter: { orgId: 'org_1', env: 'live', _id: 'ep_1', failingSince: NOW - 6 * DAY },
          update: { $set: { failingSince: NOW - 20_000 } },
        },
      ]);
      expect(log).not.toContain('alertEvents.insertOne (txn)');
      expect(log).toContain('commit');
    });

    it('read before the first run only: a transaction run again (a transient error, a failover) reads in its own snapshot', async () => {
      const scene = {
        endpoint: { status: 'active', failingSince: NOW - 6 * DAY },
        before: OPEN_PENDING,
        attemptsInStreak: [failed(NOW), succeeded(NOW - 30_000), failed(NOW - 6 * DAY)],
      };
      const { log, sent, options, complete } = completionStandIn({ ...scene, monthsKept: 2, transactionRuns: 2 });
      expect(await complete(FAILING_5_DAYS)).toMatchObject({ applied: true, endpointDisabled: false });
      // The first run uses the read made before it; the rerun, which may come long after, reads the months again in its snapshot.
      expect(log.filter((c) => c.startsWith('attempts.find'))).toEqual(['attempts.find', 'attempts.find', 'attempts.find (txn)', 'attempts.find (txn)']);
      // What a majority has, before the transaction: a subset of the snapshot it then reads in.
      expect(options.get('attempts.find')).toMatchObject({ readConcern: { level: 'majority' } });
      expect(options.get('attempts.find (txn)')).not.toHaveProperty('readConcern');
      expect(sent.filter((c) => c.name === 'endpoints.updateOne (txn)').map((c) => c.update)).toEqual([
        { $set: { failingSince: NOW } },
        { $set: { failingSince: NOW } },
      ]);
    });

    it('a streak moved between the read and the transaction’s snapshot: read again in the transaction, for the streak it shows', async () => {
      const scene = {
        endpoint: { status: 'active', failingSince: NOW - 7 * DAY },
        endpointInTransaction: { status: 'active', failingSince: NOW - 6 * DAY },
        before: OPEN_PENDING,
        attemptsInStreak: [failed(NOW), succeeded(NOW - 30_000), failed(NOW - 6 * DAY)],
      };
      const { log, sent, reading, complete } = completionStandIn({ ...scene, monthsKept: 3 });
      expect(await complete(FAILING_5_DAYS)).toMatchObject({ applied: true, endpointDisabled: false });
      expect(log.filter((c) => c.startsWith('attempts.find'))).toEqual([...Array(3).fill('attempts.find'), ...Array(3).fill('attempts.find (txn)')]);
      expect(sent.find((c) => c.name === 'attempts.find (txn)')?.filter).toMatchObject({ at: { $gt: NOW - 6 * DAY } });
      expect(reading.most).toBe(3);
      // The compare-and-set on the streak the snapshot shows (the one the second read was for).
      expect(sent.filter((c) => c.name === 'endpoints.updateOne (txn)').map((c) => c.filter['failingSince'])).toEqual([NOW - 6 * DAY]);
    });

    it('an ordered delivery’s disabling (no endpoint read before its transaction): read in the transaction, as before', async () => {
      const scene = {
        endpoint: { status: 'active', failingSince: NOW - 6 * DAY },
        before: { ...OPEN_PENDING, orderingKey: 'order-1' },
        ordered: true,
        attemptsInStreak: [failed(NOW), succeeded(NOW - 30_000), failed(NOW - 6 * DAY)],
      };
      const { log, reading, complete } = completionStandIn({ ...scene, monthsKept: 3 });
      expect(await complete(FAILING_5_DAYS)).toMatchObject({ applied: true, endpointDisabled: false });
      // A transaction's operations are sequential.
      expect(log.filter((c) => c.startsWith('attempts.find'))).toEqual(Array(3).fill('attempts.find (txn)'));
      expect(reading.most).toBe(1);
    });

    it('an ordered delivery’s disabling, 64 failures: its rollups read in the transaction too, in its snapshot (no read concern of their own)', async () => {
      const fiveMinutesBefore = Math.floor((NOW - 63_000) / 300_000) * 300_000 - 300_000;
      const scene = {
        endpoint: { status: 'active', failingSince: NOW - 6 * DAY },
        before: { ...OPEN_PENDING, orderingKey: 'order-1' },
        ordered: true,
        attemptsInStreak: Array.from({ length: 64 }, (_, i) => failed(NOW - i * 1_000)),
        succeededRollup: { 300000: fiveMinutesBefore },
      };
      const { log, options, complete } = completionStandIn(scene);
      expect(await complete(FAILING_5_DAYS)).toMatchObject({ applied: true, endpointDisabled: false });
      expect(log.filter((c) => c.startsWith('endpointRollups.findOne'))).toEqual(['endpointRollups.findOne (txn)', 'endpointRollups.findOne (txn)']);
      expect(options.get('endpointRollups.findOne (txn)')).not.toHaveProperty('readConcern');
    });

    it('64 failures and no success: the rollups after the streak’s start read for one (both grains at once); one found restarts the streak', async () => {
      // 64 failures a second apart, the newest at NOW: the oldest read is 63 s before it.
      const failures = Array.from({ length: 64 }, (_, i) => failed(NOW - i * 1_000));
      const fiveMinutesBefore = Math.floor((NOW - 63_000) / 300_000) * 300_000 - 300_000;
      const scene = {
        endpoint: { status: 'active', failingSince: NOW - 6 * DAY },
        before: OPEN_PENDING,
        attemptsInStreak: failures,
        succeededRollup: { 300000: fiveMinutesBefore },
      };
      const { log, sent, options, complete } = completionStandIn(scene);
      expect(await complete(FAILING_5_DAYS)).toMatchObject({ applied: true, endpointDisabled: false });
      const rollupReads = sent.filter((c) => c.name === 'endpointRollups.findOne');
      expect(rollupReads.map((c) => c.filter['grainMs'])).toEqual([3_600_000, 300_000]);
      expect(rollupReads[1]?.filter).toMatchObject({ endpointId: 'ep_1', succeeded: { $gt: 0 }, orgId: 'org_1', env: 'live' });
      expect(options.get('endpointRollups.findOne')).toMatchObject({
        readConcern: { level: 'majority' },
        sort: { at: -1 },
        hint: { endpointId: 1, grainMs: 1, at: 1 },
        comment: 'endpoints.newestSucceededRollup',
        readPreference: { mode: 'primary' },
        maxTimeMS: 5_000,
      });
      expect(log.indexOf('endpointRollups.findOne')).toBeLessThan(log.indexOf('deliveries.findOneAndUpdate (txn)'));
      // Its success came before the oldest attempt read: the streak begun again there.
      expect(sent.filter((c) => c.name === 'endpoints.updateOne (txn)').map((c) => c.update)).toEqual([{ $set: { failingSince: NOW - 63_000 } }]);
    });

    it('64 failures, no success in them nor in the rollups: disabled', async () => {
      const scene = {
        endpoint: { status: 'active', failingSince: NOW - 6 * DAY },
        before: OPEN_PENDING,
        attemptsInStreak: Array.from({ length: 64 }, (_, i) => failed(NOW - i * 1_000)),
      };
      const { log, complete } = completionStandIn(scene);
      expect(await complete(FAILING_5_DAYS)).toMatchObject({ applied: true, endpointDisabled: true });
      expect(log.filter((c) => c === 'endpointRollups.findOne')).toHaveLength(2);
    });

    it('64 failures, no success in the rollups written, one in this process’s counts not yet written: the streak restarted', async () => {
      const scene = {
        endpoint: { status: 'active', failingSince: NOW - 6 * DAY },
        before: OPEN_PENDING,
        attemptsInStreak: Array.from({ length: 64 }, (_, i) => failed(NOW - i * 1_000)),
      };
      const { conn, sent, complete } = completionStandIn(scene);
      // A success 5 minutes before the oldest attempt read, counted here and not flushed (every ROLLUP_FLUSH_MS).
      await addToRollups(conn, { orgId: 'org_1', env: 'live' } as never, {
        endpointId: 'ep_1' as never,
        at: NOW - 6 * 60_000,
        responseStatus: 204,
        error: null,
        durationMs: 5,
      });
      expect(await complete(FAILING_5_DAYS)).toMatchObject({ applied: true, endpointDisabled: false });
      expect(sent.filter((c) => c.name === 'endpoints.updateOne (txn)').map((c) => c.update)).toEqual([{ $set: { failingSince: NOW - 63_000 } }]);
    });

    it('64 failures, a failure of this process’s not yet written (no success): disabled', async () => {
      const scene = {
        endpoint: { status: 'active', failingSince: NOW - 6 * DAY },
        before: OPEN_PENDING,
        attemptsInStreak: Array.from({ length: 64 }, (_, i) => failed(NOW - i * 1_000)),
      };
      const { conn, complete } = completionStandIn(scene);
      await addToRollups(conn, { orgId: 'org_1', env: 'live' } as never, {
        endpointId: 'ep_1' as never,
        at: NOW - 6 * 60_000,
        responseStatus: 500,
        error: null,
        durationMs: 5,
      });
      expect(await complete(FAILING_5_DAYS)).toMatchObject({ applied: true, endpointDisabled: true });
    });

    it('a success newer than every failure of the endpoint’s (one begun during this slow one): the streak ended, nothing disabled', async () => {
      const relayFault = { _id: 'att_relay', at: NOW + 3_000, responseStatus: null, error: 'relay: no source address' };
      const cancelled = { _id: 'att_cancel', at: NOW + 4_000, responseStatus: null, error: CANCELLED_ATTEMPT_ERROR };
      const scene = {
        endpoint: { status: 'active', failingSince: NOW - 6 * DAY },
        before: OPEN_PENDING,
        attemptsInStreak: [cancelled, relayFault, succeeded(NOW + 2_000), failed(NOW), failed(NOW - 6 * DAY)],
      };
      const { log, sent, complete } = completionStandIn(scene);
      expect(await complete(FAILING_5_DAYS)).toMatchObject({ applied: true, endpointDisabled: false });
      // A relay's fault after it is ours, a cancel sent nothing: no failure of the endpoint's came after the success.
      expect(sent.filter((c) => c.name === 'endpoints.updateOne (txn)').map((c) => c.update)).toEqual([{ $set: { failingSince: null } }]);
      expect(log).not.toContain('alertEvents.insertOne (txn)');
    });

    it('no success among them: disabled as before', async () => {
      const scene = {
        endpoint: { status: 'active', failingSince: NOW - 6 * DAY },
        before: OPEN_PENDING,
        attemptsInStreak: [failed(NOW), failed(NOW - DAY), failed(NOW - 6 * DAY)],
      };
      const { sent, complete } = completionStandIn(scene);
      expect(await complete(FAILING_5_DAYS)).toMatchObject({ applied: true, endpointDisabled: true });
      expect(sent.filter((c) => c.name === 'endpoints.updateOne (txn)').map((c) => c.update)).toEqual([
        { $set: { status: 'disabled', disabledReason: 'failing_5_days' } },
      ]);
    });

    it('failing for 5 days since the success too: the streak begun again and the endpoint disabled', async () => {
      const scene = {
        endpoint: { status: 'active', failingSince: NOW - 12 * DAY },
        before: OPEN_PENDING,
        attemptsInStreak: [failed(NOW), failed(NOW - 6 * DAY), succeeded(NOW - 7 * DAY)],
      };
      const { sent, complete } = completionStandIn(scene);
      expect(await complete(FAILING_5_DAYS)).toMatchObject({ applied: true, endpointDisabled: true });
      expect(sent.filter((c) => c.name === 'endpoints.updateOne (txn)').map((c) => c.update)).toEqual([
        { $set: { failingSince: NOW - 6 * DAY } },
        { $set: { status: 'disabled', disabledReason: 'failing_5_days' } },
      ]);
    });

    it('a failure that disables nothing reads no attempts nor rollups', async () => {
      const scene = { endpoint: { status: 'active', failingSince: NOW - DAY }, before: OPEN_PENDING, attemptsInStreak: [succeeded(NOW - 1)] };
      const { log, complete } = completionStandIn(scene);
      expect(await complete(FAILING_5_DAYS)).toMatchObject({ applied: true, endpointDisabled: false });
      expect(log.filter((c) => c.startsWith('attempts.find') || c.startsWith('endpointRollups.find'))).toEqual([]);
    });
  });

  it('an ordered delivery unknown to its claim misses the plain write and is completed by the transaction, its lane handed over there', async () => {
    const { log, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: { ...OPEN_PENDING, orderingKey: 'order-1' } });
    expect(await complete(SUCCESS)).toMatchObject({ applied: true });
    expect(log.slice(0, 6)).toEqual([
      'endpoints.findOne',
      'attempts.insertOne',
      'deliveries.findOneAndUpdate',
      'endpoints.findOne (txn)',
      'deliveries.findOneAndUpdate (txn)',
      'deliveryLanes.findOne (txn)',
    ]);
    expect(inserted(log)).toHaveLength(1);
  });

  it('an ordered delivery its claim says is ordered goes straight to the transaction', async () => {
    const scene = { endpoint: { status: 'active', failingSince: null }, before: { ...OPEN_PENDING, orderingKey: 'order-1' }, ordered: true };
    const { log, complete } = completionStandIn(scene);
    expect(await complete(SUCCESS)).toMatchObject({ applied: true });
    expect(log).not.toContain('deliveries.findOneAndUpdate');
    expect(log).toContain('deliveryLanes.findOne (txn)');
    // Its attempt with it, under the commit's majority: no majority's write of its own first.
    expect(inserted(log)).toEqual(['attempts.insertOne (txn)']);
  });

  it('a claim no longer current: the attempt on record, its count moved in the transaction, nothing else', async () => {
    const { log, complete } = completionStandIn({ endpoint: { status: 'active', failingSince: null }, before: null });
    expect(await complete(SUCCESS)).toMatchObject({ applied: false });
    expect(log).toEqual([
      'endpoints.findOne',
      'attempts.insertOne',
      'deliveries.findOneAndUpdate',
      'endpoints.findOne (txn)',
      'deliveries.findOneAndUpdate (txn)',
      'deliveries.updateOne (txn)',
      'commit',
    ]);
  });

  it('a delivery of an earlier month than its attempt’s: its attempt inserted in the transaction once the delivery is found, counted once', async () => {
    const scene = { endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING, attemptAt: Date.UTC(2027, 0, 1) };
    const { log, rolledUp, complete } = completionStandIn(scene);
    expect(await complete(SUCCESS)).toMatchObject({ applied: true });
    // No endpoint read before the transaction: no plain completion can follow (its attempt is written in the transaction).
    expect(log.slice(0, 3)).toEqual(['endpoints.findOne (txn)', 'deliveries.findOneAndUpdate (txn)', 'attempts.insertOne (txn)']);
    expect(inserted(log)).toHaveLength(1);
    expect(rolledUp.length).toBeGreaterThan(0);
    for (const inc of rolledUp) expect(inc).toMatchObject({ attempts: 1 });
  });

  it('an endpoint not readable for an overload fails no completion whose attempt the transaction is to write (an earlier month’s)', async () => {
    const refused = new MongoServerError({ code: 462, errmsg: 'ingress request rate limit exceeded' });
    refused.addErrorLabel('SystemOverloadedError');
    const scene = { endpoint: { status: 'active', failingSince: null }, before: OPEN_PENDING, attemptAt: Date.UTC(2027, 0, 1), endpointReadThrows: refused };
    const { log, complete } = completionStandIn(scene);
    expect(await complete(SUCCESS)).toMatchObject({ applied: true });
    expect(inserted(log)).toEqual(['attempts.insertOne (txn)']);
  });

  it('a delivery whose month retention dropped during its send: no attempt written (it would make the collection again)', async () => {
    const later = Date.UTC(2027, 1, 1);
    const scene = { endpoint: { status: 'active', failingSince: null }, before: null, gone: true, attemptAt: later };
    const { log, complete } = completionStandIn(scene);
    expect(await complete(SUCCESS)).toMatchObject({ applied: false });
    expect(inserted(log)).toEqual([]);
  });
});

describe('plainCompletion', () => {
  const active = { status: 'active' as const, failingSince: null };
  const failing = { status: 'active' as const, failingSince: NOW - 60_000 };
  const outcome = (o: Record<string, unknown>) => ({ attempt: { at: NOW }, countsTowardPolicy: true, ...o }) as never;
  it('is a success or a failure that changes nothing of the endpoint but its streak, and sends no alert but the streak’s', () => {
    expect(plainCompletion(outcome(SUCCESS), active)).toBe(true);
    expect(plainCompletion(outcome(RETRY), failing)).toBe(true);
    // Our own fault (the egress relay): the endpoint's record is left as it is.
    expect(plainCompletion(outcome({ ...RETRY, endpoint: { succeeded: null } }), active)).toBe(true);
  });
  it('is when the streak begins or ends (an end written before the delivery, a start after it, each on its own)', () => {
    expect(plainCompletion(outcome(SUCCESS), failing)).toBe(true);
    expect(plainCompletion(outcome(RETRY), active)).toBe(true);
  });
  it('is not when the endpoint is disabled now, the delivery fails for good, or the endpoint is not active', () => {
    expect(plainCompletion(outcome({ ...RETRY, endpoint: { succeeded: false, disableIfFailingSince: NOW - 1_000 } }), failing)).toBe(false);
    expect(plainCompletion(outcome({ ...RETRY, endpoint: { succeeded: false, disableIfFailingSince: NOW - 120_000 } }), failing)).toBe(true);
    expect(plainCompletion(outcome({ status: 'failed', nextAttemptAt: null, endpoint: { succeeded: false } }), failing)).toBe(false);
    expect(plainCompletion(outcome(SUCCESS), { status: 'paused', failingSince: null })).toBe(false);
    expect(plainCompletion(outcome(SUCCESS), null)).toBe(false);
  });
});

describe('claimRef', () => {
  const job = (orderingKey: string | null | undefined) =>
    ({ tenant: { orgId: 'org_1', env: 'live' }, delivery: { id: 'dlv_1', endpointId: 'ep_1', orderingKey }, leaseToken: 3 }) as never;
  it('tells the store whether the delivery was ordered when claimed (MongoDB completes an unordered one without a transaction)', () => {
    expect(claimRef(job('order-1')).ordered).toBe(true);
    expect(claimRef(job(null)).ordered).toBe(false);
    expect(claimRef(job(undefined)).ordered).toBe(false);
  });
});
