import { type Document, ReadPreference, type WriteConcernSettings } from 'mongodb';
import { INDEXES } from '../indexes.ts';

// Every query the MongoDB adapter sends is a named plan: the filter it sends (built here, so
// the call site cannot drift from what is checked), the index it must use, and how many
// documents it examines when its collection holds 10⁸. The name goes out as the command's
// `comment` (it shows in the profiler, currentOp and the slow-query log, so a database
// engineer can tell which of ours a slow operation is) and the index as its `hint` (a plan
// cache that flips to another index under load is a classic incident; a hint cannot flip).
// plan-check.ts holds each plan's shape against its index; query-shapes.test.ts runs that
// check on every plan in `./dev test`, and query-plans.test.ts asks a real server.

/**
 * The write concern of a claim (a delivery's, an alert notice's, a job's lease): held by a
 * majority, so a failover cannot roll it back and hand the same thing to a second claimant;
 * a majority that does not answer within 5 s fails it (the claimant's lease margin is longer).
 */
export const CLAIMED_BY_MAJORITY = { w: 'majority', wtimeoutMS: 5_000 } as const satisfies WriteConcernSettings;

/**
 * The write concern of a completion made without a transaction (delivery-complete.ts: its attempt,
 * then its delivery's state): a majority, as a transaction's commit has, and within the 10 s the
 * driver gives a commit — not the deployment's default, a majority with no time limit, under which
 * a lagging majority would hold the dispatcher's place for as long as it lags. Both writes wait for it:
 * with the attempt's on the primary alone, a failover between the two could roll the attempt back
 * and keep the state the new primary took.
 */
export const COMPLETED_BY_MAJORITY = { w: 'majority', wtimeoutMS: 10_000 } as const satisfies WriteConcernSettings;

/**
 * The write concern of a lease given up: the primary's acknowledgement alone. The server's
 * default (a majority, with no time limit, from MongoDB 5.0) would hang the release where it is
 * most needed — an upgrade failing because a majority does not answer — while a release rolled
 * back in a failover costs only a wait for the lease's expiry.
 */
export const RELEASED_BY_PRIMARY = { w: 1 } as const satisfies WriteConcernSettings;

/** A read's options on the primary, whatever MONGODB_URL's readPreference (PlanSpec.primary says when). */
export const ON_PRIMARY = { readPreference: ReadPreference.primary } as const;

/** The server's time in ms (`$$NOW`), as leases and counts store it: the processes' clocks may disagree. */
export const SERVER_NOW_MS = { $toLong: '$$NOW' } as const;

/** What a plan sends, built from its arguments. */
export interface PlanShape {
  /** The filter (a find's, count's, update's, delete's) or the pipeline's first `$match`. */
  filter: Document;
  /** The order the index must deliver (never sorted in memory). */
  sort?: Record<string, 1 | -1>;
  /** For an aggregate: the whole pipeline; its first stage is `{ $match: filter }` (and its second `{ $sort: sort }` when sorted). */
  pipeline?: Document[];
}

/** A plan as declared. */
export interface PlanSpec<A extends unknown[]> {
  /** The collection it reads (COLLECTIONS' value). */
  collection: string;
  /** The index it must use, by name (`_id_` for lookups by id). */
  index: string;
  /**
   * Documents (and index keys) examined with 10⁸ in the collection, and why that bound holds:
   * "1" (a unique lookup), "≤ limit" (an index walk that stops at its page), … Never "all".
   */
  examines: string;
  /**
   * The most documents a real server may examine in query-plans.test.ts's seeded run, as a
   * function of what it returned: documents examined beyond it fail the test.
   */
  maxExamined: (returned: number) => number;
  /** The most index keys it may examine there (a count's, which fetches nothing); unchecked when absent. */
  maxKeysExamined?: (returned: number) => number;
  /**
   * Filter fields the index does not hold, tested on each fetched document, with why that
   * fetches no more than `examines` says. Any other field must be a key of the index or
   * repeat its partial filter exactly.
   */
  residual?: Record<string, string>;
  /**
   * The write's own write concern, whatever the cluster's default or the URL's `w=` says: a
   * claim's (CLAIMED_BY_MAJORITY), whose loss in a failover would break an invariant, or a lease
   * given up (RELEASED_BY_PRIMARY). Never inside a transaction: the driver drops a call's write
   * concern there, and the commit's applies.
   */
  writeConcern?: WriteConcernSettings;
  /**
   * A read on the primary whatever MONGODB_URL's readPreference: the due queue's, whose answer
   * moves bounds and leases (a lagging secondary's read would raise a tenant's bound past an
   * entry just lowered, or list what was claimed since) — never a secondary's, though an
   * operator may send the API's reads there.
   */
  primary?: true;
  build: (...args: A) => PlanShape;
  /** Arguments to build a representative instance for the shape check. */
  example: A;
}

/** A plan's command, ready to send. */
export interface Sent extends PlanShape {
  name: string;
  /**
   * `hint` (the index's key pattern: findAndModify's options take no name) and `comment` (and a
   * find's `sort`): pass to the driver's call as its options.
   */
  options: { hint: Document; comment: string; sort?: Record<string, 1 | -1>; writeConcern?: WriteConcernSettings; readPreference?: ReadPreference };
}

/** A declared plan: call it with its arguments for the command to send. */
export interface Plan<A extends unknown[]> {
  (...args: A): Sent;
  readonly planName: string;
  readonly spec: PlanSpec<A>;
}

/** A plan of any argument types (catalogues and checks hold plans of every kind). */
// biome-ignore lint/suspicious/noExplicitAny: each plan keeps its own argument types.
export type AnyPlan = Plan<any>;

/** The plans of one area, each named `area.key`. */
// biome-ignore lint/suspicious/noExplicitAny: each plan keeps its own argument types.
export function definePlans<S extends Record<string, PlanSpec<any>>>(area: string, specs: S): { [K in keyof S]: Plan<Parameters<S[K]['build']>> } {
  const plans: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(specs)) {
    const name = `${area}.${key}`;
    const plan = (...args: unknown[]): Sent => {
      const shape = spec.build(...args);
      // An aggregate sorts in its pipeline; its options take no sort.
      const sort = shape.sort && !shape.pipeline ? { sort: shape.sort } : {};
      const durable = spec.writeConcern === undefined ? {} : { writeConcern: spec.writeConcern };
      const where = spec.primary ? ON_PRIMARY : {};
      return { name, ...shape, options: { hint: keyOf(spec.collection, spec.index), comment: name, ...sort, ...durable, ...where } };
    };
    plans[key] = Object.assign(plan, { planName: name, spec });
  }
  return plans as { [K in keyof S]: Plan<Parameters<S[K]['build']>> };
}

/** A spec with its argument types inferred from `build` (so `example` is checked against them). */
export function planSpec<A extends unknown[]>(spec: PlanSpec<A>): PlanSpec<A> {
  return spec;
}

/** A document of a tenant found by its unique `_id` (an endpoint, a message, a delivery …): the read every repo makes. */
export function tenantById(collection: string, exampleId: string): PlanSpec<[{ orgId: string; env: string }, string]> {
  const tenant = 'orgId and env: the tenant of a document found by its unique _id (a check, never a widening)';
  return {
    collection,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    residual: { orgId: tenant, env: tenant },
    build: (t, id) => ({ filter: { orgId: t.orgId, env: t.env, _id: id } }),
    example: [{ orgId: 'org_1', env: 'live' }, exampleId],
  };
}

/** A pipeline that starts with the shape's `$match` (and `$sort`), then `rest`. */
export function pipelineOf(filter: Document, sort: Record<string, 1 | -1> | undefined, rest: Document[]): PlanShape {
  return { filter, ...(sort ? { sort } : {}), pipeline: [{ $match: filter }, ...(sort ? [{ $sort: sort }] : []), ...rest] };
}

/** The key pattern of `collection`'s index `name` (`_id_`: `{ _id: 1 }`). @throws Error when there is none. */
export function keyOf(collection: string, name: string): Document {
  if (name === '_id_') return { _id: 1 };
  const index = INDEXES[collection]?.find((i) => i.name === name);
  if (index === undefined) throw new Error(`no index ${name} on ${collection}`);
  return index.key as Document;
}
