import { COLLECTIONS } from '../connection.ts';
import { CLAIMED_BY_MAJORITY, definePlans, planSpec, RELEASED_BY_PRIMARY } from './plan.ts';

/** The named queries of job leases, sealing key checks, the egress IP pool and usage counters. */

const BY_ID = '1: by _id';
const POOL = "the fixed IP pool: a handful of addresses (the egress relay's, configured by operators), never more than tens";

export const OPERATIONS_PLANS = definePlans('operations', {
  /**
   * A job's lease, by _id alone: whether it is taken is decided in the update's pipeline
   * (job-lease-repo.ts, leaseTakeUpdate), because MongoDB refuses `$expr` in an upsert's filter
   * (code 224) and the rule is by the server's clock (`$$NOW`).
   */
  jobLease: planSpec({
    collection: COLLECTIONS.jobLeases,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    // Rolled back in a failover, a lease would let a second holder run the job (retention, a layout upgrade) beside it.
    writeConcern: CLAIMED_BY_MAJORITY,
    build: (name: string) => ({ filter: { _id: name } }),
    example: ['retention'],
  }),
  /** A job's lease ended by its holder (set to expire), if it still holds it. */
  jobLeaseRelease: planSpec({
    collection: COLLECTIONS.jobLeases,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    residual: { holder: 'the holder: a condition on the one document _id found' },
    writeConcern: RELEASED_BY_PRIMARY,
    build: (name: string, holder: string) => ({ filter: { _id: name, holder } }),
    example: ['retention', 'host-1'],
  }),

  /** The key ring's check values, oldest first. */
  keyChecks: planSpec({
    collection: COLLECTIONS.keyChecks,
    index: 'sealing_key_checks_created',
    examines: "the key ring's checks: one per key ever added and not removed (a handful)",
    maxExamined: (n) => n,
    build: () => ({ filter: {}, sort: { createdAt: 1, _id: 1 } }),
    example: [],
  }),
  /** A key's check by id. */
  keyCheck: planSpec({
    collection: COLLECTIONS.keyChecks,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    build: (keyId: string) => ({ filter: { _id: keyId } }),
    example: ['key_1'],
  }),

  /** Every address of the pool (a sync's read, in its transaction). */
  egressIps: planSpec({
    collection: COLLECTIONS.egressIps,
    index: '_id_',
    examines: POOL,
    maxExamined: (n) => n,
    build: () => ({ filter: {} }),
    example: [],
  }),
  /** The pool's addresses not retired at `now` (egress list). */
  egressIpsListed: planSpec({
    collection: COLLECTIONS.egressIps,
    index: '_id_',
    examines: POOL,
    maxExamined: (n) => n + 10,
    residual: { $or: 'not retired at `now`: retired addresses (removed at the next sync) are read and skipped' },
    build: (now: number) => ({ filter: { $or: [{ retiringAt: null }, { retiringAt: { $gt: now } }] } }),
    example: [1],
  }),
  /** One address of the pool by id. */
  egressIp: planSpec({
    collection: COLLECTIONS.egressIps,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    build: (ip: string) => ({ filter: { _id: ip } }),
    example: ['192.0.2.1'],
  }),
  /** A pool change by id (the `pool-version` document every sync bumps, or a change being told). */
  egressChange: planSpec({
    collection: COLLECTIONS.egressChanges,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    build: (id: string) => ({ filter: { _id: id } }),
    example: ['pool-version'],
  }),
  /** A change being told, moved on only from the cursor read (compare-and-set). */
  egressChangeAt: planSpec({
    collection: COLLECTIONS.egressChanges,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    residual: { done: 'not done: a condition on the one document _id found', cursor: 'the cursor read: a compare-and-set' },
    build: (id: string, cursor: string | null) => ({ filter: { _id: id, done: false, cursor } }),
    example: ['chg_1', null],
  }),
  /** The changes still being told, oldest first (one at most: a sync folds the others into its own). */
  egressChangesPending: planSpec({
    collection: COLLECTIONS.egressChanges,
    index: 'egress_changes_pending',
    examines: '≤ 1 (a sync marks every pending change done before it adds its own): egress_changes_pending holds undone changes only',
    maxExamined: (n) => n + 1,
    build: () => ({ filter: { done: false }, sort: { at: 1, _id: 1 } }),
    example: [],
  }),
  /** The next organization after a cursor with a fixed_ip endpoint (covered: one seek). */
  nextFixedIpOrg: planSpec({
    collection: COLLECTIONS.endpoints,
    index: 'endpoints_fixed_ip',
    examines:
      '1 index key and its document: a seek past the cursor organization (its other fixed_ip endpoints are skipped, not read); ' +
      'the document read for fixedIp, which the key lacks (MongoDB 6.0 tests a partial filter repeated outside the key)',
    maxExamined: (n) => n,
    // Index keys only: the entries it matched, and a seek or two at its ranges' ends.
    maxKeysExamined: (n) => n + 2,
    build: (afterOrgId: string) => ({ filter: { fixedIp: true, orgId: { $gt: afterOrgId } }, sort: { orgId: 1 } }),
    example: ['org_1'],
  }),

  /** A counter's shards by id (a send's check, a give-back's read). */
  counterShards: planSpec({
    collection: COLLECTIONS.counters,
    index: '_id_',
    examines: "the ids given (SHARDS per counter: a send's few counters, or a page of liveMonthUsage's, ≤ 500 × 8): point reads of the _id index",
    maxExamined: (n) => n,
    build: (ids: readonly string[]) => ({ filter: { _id: { $in: [...ids] } } }),
    example: [['live:org_1:2026-11', '1|live:org_1:2026-11']],
  }),
  /** One shard of a counter by id (a send's increment). */
  counterShard: planSpec({
    collection: COLLECTIONS.counters,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    build: (shardId: string) => ({ filter: { _id: shardId } }),
    example: ['1|live:org_1:2026-11'],
  }),
  /** An organization's usage-over mark of a month (usage-counters.ts), by id: its plan's first usage threshold reached, or its plan changed. */
  usageOverMark: planSpec({
    collection: COLLECTIONS.counters,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    build: (markId: string) => ({ filter: { _id: markId } }),
    example: ['usage-over:2026-11:org_1'],
  }),
  /** A shard's count given back while its period lasts and it has one. */
  counterGiveBack: planSpec({
    collection: COLLECTIONS.counters,
    index: '_id_',
    examines: BY_ID,
    maxExamined: () => 1,
    residual: { expiresAt: 'not over: a condition on the one document _id found', value: 'above 0: as expiresAt' },
    build: (shardId: string, at: Date) => ({ filter: { _id: shardId, expiresAt: { $gt: at }, value: { $gt: 0 } } }),
    example: ['1|live:org_1:2026-11', new Date(0)],
  }),
});
