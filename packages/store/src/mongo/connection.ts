import { type ClientSession, type Collection, type Db, type MongoClient, ReadPreference, type TransactionOptions } from 'mongodb';
import { idsByMonth, type Month, monthOfId } from './months.ts';
import { POINT_OP_MS } from './query.ts';
import type {
  AlertConditionsDoc,
  AlertEventDoc,
  AlertNoticeAttemptDoc,
  AlertNoticeDoc,
  AlertStateDoc,
  AlertTargetDoc,
  ApiKeyDoc,
  AttemptDoc,
  ConsumerDoc,
  CounterDoc,
  DeliveryDoc,
  DeliveryLaneDoc,
  DueEndpointDoc,
  DueTenantDoc,
  MetaDoc,
  EgressChangeDoc,
  EgressIpDoc,
  EndpointRollupDoc,
  EndpointRecheckDoc,
  EndpointWalkDoc,
  JobLeaseDoc,
  EndpointDoc,
  EventTypeDoc,
  EventTypeVersionDoc,
  IdempotencyKeyDoc,
  KeyCheckDoc,
  PortalTokenDoc,
  RecoveryDoc,
  MessageBodyDoc,
  MessageDoc,
  OrgDoc,
} from './documents.ts';

/**
 * Collection names, one per aggregate. The MONTHLY ones are families: each month has its own
 * collection, `<name>_YYYYMM` (months.ts), reached through MongoConnection.bucket.
 */
export const COLLECTIONS = {
  orgs: 'orgs',
  apiKeys: 'api_keys',
  consumers: 'consumers',
  endpoints: 'endpoints',
  eventTypes: 'event_types',
  eventTypeVersions: 'event_type_versions',
  messages: 'messages',
  messageBodies: 'message_bodies',
  deliveries: 'deliveries',
  attempts: 'attempts',
  counters: 'usage_counters',
  idempotencyKeys: 'idempotency_keys',
  keyChecks: 'sealing_key_checks',
  recoveries: 'recoveries',
  portalTokens: 'portal_tokens',
  alertConditions: 'alert_conditions',
  alertTargets: 'alert_targets',
  alertEvents: 'alert_events',
  alertState: 'alert_state',
  alertNotices: 'alert_notices',
  alertNoticeAttempts: 'alert_notice_attempts',
  endpointWalks: 'endpoint_walks',
  endpointRechecks: 'endpoint_rechecks',
  jobLeases: 'job_leases',
  endpointRollups: 'endpoint_rollups',
  egressIps: 'egress_ips',
  egressChanges: 'egress_changes',
  deliveryLanes: 'delivery_lanes',
  dueEndpoints: 'due_endpoints',
  dueTenants: 'due_tenants',
  meta: 'meta',
} as const;

/** The families kept one collection per month (months.ts). */
export const MONTHLY = [COLLECTIONS.messages, COLLECTIONS.messageBodies, COLLECTIONS.deliveries, COLLECTIONS.attempts] as const;

/** The name of `family`'s collection for `month`: `deliveries_202611`. */
export function bucketName(family: (typeof MONTHLY)[number], month: Month): string {
  return `${family}_${month}`;
}

/** One month's collections: a message, its body, its deliveries and their attempts are in one month's. */
export interface MonthBucket {
  readonly month: Month;
  readonly messages: Collection<MessageDoc>;
  readonly messageBodies: Collection<MessageBodyDoc>;
  readonly deliveries: Collection<DeliveryDoc>;
  readonly attempts: Collection<AttemptDoc>;
}

// Snapshot reads and majority writes: a transaction sees one state, and a write that two
// transactions both make (a consumer's endpoint count, a counter, an idempotency key)
// makes one of them fail with a transient write conflict, which withTransaction retries. (The
// driver gives a commit's majority 10 s, and tries a commit not confirmed again until the
// transaction's 120 s are spent: a failover's 503 can take that long.)
const TRANSACTION_OPTIONS: TransactionOptions = {
  readConcern: { level: 'snapshot' },
  writeConcern: { w: 'majority' },
  readPreference: 'primary',
};

/** `meta`'s document listing the months whose collections exist: `{ _id: 'months', months: ['202611', …] }`. */
export const MONTHS_DOC = 'months';
/**
 * plans/months.ts's `months.list`, spelled out here (the plans import this module);
 * months.test.ts holds the two equal.
 */
export const MONTHS_LIST = { filter: { _id: MONTHS_DOC }, options: { hint: { _id: 1 }, comment: 'months.list' } } as const;
/** How long a process trusts its list of months before it reads `meta` again. */
const MONTHS_TTL_MS = 60_000;
/**
 * How old a list may be and still answer while it is read again, or after that read failed: a
 * month is made a month before its first document, so an old list misses nothing written, and a
 * month dropped meanwhile reads as empty. Only a process with no list this young waits for the read.
 */
const MONTHS_KEPT_MS = 600_000;
/**
 * The list's read, bounded on the server: a process without a list young enough waits on it
 * (every read across months: requests, the due queue, retention), so a primary too slow for one
 * point read answers them the overload's 503 (errors.ts: MaxTimeMSExpired) rather than holding them all.
 */
const MONTHS_READ = { ...MONTHS_LIST.options, maxTimeMS: POINT_OP_MS };

/** The client, database and typed collections shared by the repos of one Mongo store. */
export class MongoConnection {
  readonly client: MongoClient;
  readonly db: Db;
  readonly orgs: Collection<OrgDoc>;
  readonly apiKeys: Collection<ApiKeyDoc>;
  readonly consumers: Collection<ConsumerDoc>;
  readonly endpoints: Collection<EndpointDoc>;
  readonly eventTypes: Collection<EventTypeDoc>;
  readonly eventTypeVersions: Collection<EventTypeVersionDoc>;
  readonly endpointWalks: Collection<EndpointWalkDoc>;
  readonly endpointRechecks: Collection<EndpointRecheckDoc>;
  readonly jobLeases: Collection<JobLeaseDoc>;
  readonly endpointRollups: Collection<EndpointRollupDoc>;
  readonly egressIps: Collection<EgressIpDoc>;
  readonly egressChanges: Collection<EgressChangeDoc>;
  readonly deliveryLanes: Collection<DeliveryLaneDoc>;
  readonly dueEndpoints: Collection<DueEndpointDoc>;
  readonly dueTenants: Collection<DueTenantDoc>;
  readonly meta: Collection<MetaDoc>;
  readonly counters: Collection<CounterDoc>;
  readonly idempotencyKeys: Collection<IdempotencyKeyDoc>;
  readonly keyChecks: Collection<KeyCheckDoc>;
  readonly recoveries: Collection<RecoveryDoc>;
  readonly portalTokens: Collection<PortalTokenDoc>;
  readonly alertConditions: Collection<AlertConditionsDoc>;
  readonly alertTargets: Collection<AlertTargetDoc>;
  readonly alertEvents: Collection<AlertEventDoc>;
  readonly alertState: Collection<AlertStateDoc>;
  readonly alertNotices: Collection<AlertNoticeDoc>;
  readonly alertNoticeAttempts: Collection<AlertNoticeAttemptDoc>;

  readonly #buckets = new Map<Month, MonthBucket>();
  #months: { list: Month[]; readAt: number } | undefined;
  #monthsRead: Promise<Month[]> | undefined;
  /** Moved on by forgetMonths: a read begun before it does not keep what it read. */
  #monthsKnown = 0;

  constructor(client: MongoClient, db: Db) {
    this.client = client;
    this.db = db;
    this.orgs = db.collection(COLLECTIONS.orgs);
    this.apiKeys = db.collection(COLLECTIONS.apiKeys);
    this.consumers = db.collection(COLLECTIONS.consumers);
    this.endpoints = db.collection(COLLECTIONS.endpoints);
    this.eventTypes = db.collection(COLLECTIONS.eventTypes);
    this.eventTypeVersions = db.collection(COLLECTIONS.eventTypeVersions);
    this.keyChecks = db.collection(COLLECTIONS.keyChecks);
    this.recoveries = db.collection(COLLECTIONS.recoveries);
    this.portalTokens = db.collection(COLLECTIONS.portalTokens);
    this.alertConditions = db.collection(COLLECTIONS.alertConditions);
    this.alertTargets = db.collection(COLLECTIONS.alertTargets);
    this.alertEvents = db.collection(COLLECTIONS.alertEvents);
    this.alertState = db.collection(COLLECTIONS.alertState);
    this.alertNotices = db.collection(COLLECTIONS.alertNotices);
    this.alertNoticeAttempts = db.collection(COLLECTIONS.alertNoticeAttempts);
    this.endpointWalks = db.collection(COLLECTIONS.endpointWalks);
    this.endpointRechecks = db.collection(COLLECTIONS.endpointRechecks);
    this.jobLeases = db.collection(COLLECTIONS.jobLeases);
    this.endpointRollups = db.collection(COLLECTIONS.endpointRollups);
    this.egressIps = db.collection(COLLECTIONS.egressIps);
    this.egressChanges = db.collection(COLLECTIONS.egressChanges);
    this.deliveryLanes = db.collection(COLLECTIONS.deliveryLanes);
    this.dueEndpoints = db.collection(COLLECTIONS.dueEndpoints);
    this.dueTenants = db.collection(COLLECTIONS.dueTenants);
    this.meta = db.collection(COLLECTIONS.meta);
    this.counters = db.collection(COLLECTIONS.counters);
    this.idempotencyKeys = db.collection(COLLECTIONS.idempotencyKeys);
  }

  /**
   * The month whose bucket is the single collections of layouts before 4 (`messages`,
   * `deliveries` …, adopted in place by layout-upgrade.ts), holding that month and every one
   * before it; null for a database made in layout 4. Read once at open: it never changes.
   */
  legacyMonth: Month | null = null;

  /** `month`'s collections (whether or not they exist yet: a read of one not made finds nothing). */
  bucket(month: Month): MonthBucket {
    let b = this.#buckets.get(month);
    if (b === undefined) {
      // The legacy month's bucket is the single collections, by the family's own name.
      const name = (family: (typeof MONTHLY)[number]) => (month === this.legacyMonth ? family : bucketName(family, month));
      b = {
        month,
        messages: this.db.collection(name(COLLECTIONS.messages)),
        messageBodies: this.db.collection(name(COLLECTIONS.messageBodies)),
        deliveries: this.db.collection(name(COLLECTIONS.deliveries)),
        attempts: this.db.collection(name(COLLECTIONS.attempts)),
      };
      this.#buckets.set(month, b);
    }
    return b;
  }

  /**
   * The bucket of a message, a delivery or an attempt's delivery, by that id's month: a message
   * and its deliveries are stamped with one time (newDeliveryId), so either id finds the bucket.
   * @throws Error for an id that holds no time (ids reach the store checked).
   */
  bucketOf(id: string): MonthBucket {
    return this.bucket(this.bucketMonthOf(id));
  }

  /**
   * The month of the bucket that holds `id`'s document: its id's month, or the legacy month
   * for an id of a month before it (every caller that groups or bounds by month uses this,
   * never the raw monthOfId, so an id of an adopted month is never sent to a collection that
   * was never made).
   */
  bucketMonthOf(id: string): Month {
    const month = monthOfId(id);
    return this.legacyMonth !== null && month < this.legacyMonth ? this.legacyMonth : month;
  }

  /** The same database with every read on the primary, whatever MONGODB_URL's readPreference (the layout upgrade's). */
  onPrimary(): MongoConnection {
    return new MongoConnection(this.client, this.client.db(this.db.databaseName, { readPreference: ReadPreference.primary }));
  }

  /** `ids` by the month of their bucket (bucketMonthOf), each once: one query per bucket. */
  idsByBucket(ids: Iterable<string>): Map<Month, string[]> {
    return idsByMonth(ids, (id) => this.bucketMonthOf(id));
  }

  /**
   * Reads the legacy month from `meta` (open-mongo-store.ts, after the layout upgrade), on the
   * primary whatever MONGODB_URL's readPreference: read once a process, it decides which
   * collections hold this month's data, and a lagging secondary's "none" would send it elsewhere
   * for the process's life.
   */
  async readLegacyMonth(): Promise<void> {
    const doc = await this.meta.findOne(MONTHS_LIST.filter, { ...MONTHS_LIST.options, readPreference: ReadPreference.primary });
    this.legacyMonth = doc?.legacyMonth ?? null;
    this.#buckets.clear();
  }

  /**
   * The months whose collections exist (made ahead by provisionMonths, dropped by retention),
   * oldest first: what a read across months walks. Read from `meta` at most every MONTHS_TTL_MS,
   * one read at a time; a list under MONTHS_KEPT_MS old answers while it is read again (or after
   * that read failed), so a slow primary holds no caller that has one.
   */
  async months(now: number = Date.now()): Promise<Month[]> {
    const kept = this.#months;
    // A clock stepped back (a negative age) says nothing of the list's age: it is read again.
    const age = kept === undefined ? Number.POSITIVE_INFINITY : now - kept.readAt;
    if (kept !== undefined && age >= 0 && age < MONTHS_TTL_MS) return kept.list;
    const read = this.#readMonths(now);
    if (kept === undefined || age < 0 || age >= MONTHS_KEPT_MS) return read;
    read.catch(() => {}); // the next call past the TTL reads again
    return kept.list;
  }

  /** The one read of the list under way, or a new one; kept as the list unless forgetMonths came between. */
  #readMonths(now: number): Promise<Month[]> {
    if (this.#monthsRead !== undefined) return this.#monthsRead;
    const known = this.#monthsKnown;
    const read = this.meta.findOne(MONTHS_LIST.filter, MONTHS_READ).then((doc) => {
      const list = [...((doc as { months?: Month[] } | null)?.months ?? [])].sort();
      if (known === this.#monthsKnown) this.#months = { list, readAt: now };
      return list;
    });
    this.#monthsRead = read;
    read
      .finally(() => {
        if (this.#monthsRead === read) this.#monthsRead = undefined;
      })
      .catch(() => {});
    return read;
  }

  /**
   * The list read again now, for a caller that found a month it lacks (a walk recorded there by
   * a process that made it since): joins the read under way or starts one. Unlike forgetMonths,
   * the list kept answers every other caller meanwhile, and only a read that succeeds replaces it.
   */
  refreshMonths(now: number = Date.now()): Promise<Month[]> {
    return this.#readMonths(now);
  }

  /** Forgets the list (after this process made or dropped a month), and what a read under way will find. */
  forgetMonths(): void {
    this.#months = undefined;
    this.#monthsRead = undefined;
    this.#monthsKnown++;
  }

  /**
   * Runs `fn` in a multi-document transaction (requires a replica set or sharded cluster).
   * The driver runs `fn` again on a transient error (such as a write conflict with another
   * transaction), so `fn` must do nothing but database work through `session`. Errors `fn`
   * throws abort the transaction and are rethrown.
   */
  transaction<T>(fn: (session: ClientSession) => Promise<T>): Promise<T> {
    return this.client.withSession((session) => session.withTransaction(() => fn(session), TRANSACTION_OPTIONS));
  }

  /** Closes the client; a second call does nothing. */
  async close(): Promise<void> {
    await this.client.close();
  }
}
