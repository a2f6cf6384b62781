import type { ClientSession, Collection, Db, MongoClient, TransactionOptions } from 'mongodb';
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
  MetaDoc,
  EgressChangeDoc,
  EgressIpDoc,
  EndpointRollupDoc,
  EndpointWalkDoc,
  JobLeaseDoc,
  EndpointDoc,
  EventTypeDoc,
  IdempotencyKeyDoc,
  KeyCheckDoc,
  PortalTokenDoc,
  RecoveryDoc,
  MessageBodyDoc,
  MessageDoc,
  OrgDoc,
} from './documents.ts';

/** Collection names, one per aggregate. */
export const COLLECTIONS = {
  orgs: 'orgs',
  apiKeys: 'api_keys',
  consumers: 'consumers',
  endpoints: 'endpoints',
  eventTypes: 'event_types',
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
  jobLeases: 'job_leases',
  endpointRollups: 'endpoint_rollups',
  egressIps: 'egress_ips',
  egressChanges: 'egress_changes',
  deliveryLanes: 'delivery_lanes',
  dueEndpoints: 'due_endpoints',
  meta: 'meta',
} as const;

// Snapshot reads and majority writes: a transaction sees one state, and a write that two
// transactions both make (a consumer's endpoint count, a counter, an idempotency key)
// makes one of them fail with a transient write conflict, which withTransaction retries.
const TRANSACTION_OPTIONS: TransactionOptions = {
  readConcern: { level: 'snapshot' },
  writeConcern: { w: 'majority' },
  readPreference: 'primary',
};

/** The client, database and typed collections shared by the repos of one Mongo store. */
export class MongoConnection {
  readonly client: MongoClient;
  readonly db: Db;
  readonly orgs: Collection<OrgDoc>;
  readonly apiKeys: Collection<ApiKeyDoc>;
  readonly consumers: Collection<ConsumerDoc>;
  readonly endpoints: Collection<EndpointDoc>;
  readonly eventTypes: Collection<EventTypeDoc>;
  readonly messages: Collection<MessageDoc>;
  readonly messageBodies: Collection<MessageBodyDoc>;
  readonly deliveries: Collection<DeliveryDoc>;
  readonly endpointWalks: Collection<EndpointWalkDoc>;
  readonly jobLeases: Collection<JobLeaseDoc>;
  readonly endpointRollups: Collection<EndpointRollupDoc>;
  readonly egressIps: Collection<EgressIpDoc>;
  readonly egressChanges: Collection<EgressChangeDoc>;
  readonly deliveryLanes: Collection<DeliveryLaneDoc>;
  readonly dueEndpoints: Collection<DueEndpointDoc>;
  readonly meta: Collection<MetaDoc>;
  readonly attempts: Collection<AttemptDoc>;
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

  constructor(client: MongoClient, db: Db) {
    this.client = client;
    this.db = db;
    this.orgs = db.collection(COLLECTIONS.orgs);
    this.apiKeys = db.collection(COLLECTIONS.apiKeys);
    this.consumers = db.collection(COLLECTIONS.consumers);
    this.endpoints = db.collection(COLLECTIONS.endpoints);
    this.eventTypes = db.collection(COLLECTIONS.eventTypes);
    this.keyChecks = db.collection(COLLECTIONS.keyChecks);
    this.recoveries = db.collection(COLLECTIONS.recoveries);
    this.portalTokens = db.collection(COLLECTIONS.portalTokens);
    this.alertConditions = db.collection(COLLECTIONS.alertConditions);
    this.alertTargets = db.collection(COLLECTIONS.alertTargets);
    this.alertEvents = db.collection(COLLECTIONS.alertEvents);
    this.alertState = db.collection(COLLECTIONS.alertState);
    this.alertNotices = db.collection(COLLECTIONS.alertNotices);
    this.alertNoticeAttempts = db.collection(COLLECTIONS.alertNoticeAttempts);
    this.messages = db.collection(COLLECTIONS.messages);
    this.messageBodies = db.collection(COLLECTIONS.messageBodies);
    this.deliveries = db.collection(COLLECTIONS.deliveries);
    this.endpointWalks = db.collection(COLLECTIONS.endpointWalks);
    this.jobLeases = db.collection(COLLECTIONS.jobLeases);
    this.endpointRollups = db.collection(COLLECTIONS.endpointRollups);
    this.egressIps = db.collection(COLLECTIONS.egressIps);
    this.egressChanges = db.collection(COLLECTIONS.egressChanges);
    this.deliveryLanes = db.collection(COLLECTIONS.deliveryLanes);
    this.dueEndpoints = db.collection(COLLECTIONS.dueEndpoints);
    this.meta = db.collection(COLLECTIONS.meta);
    this.attempts = db.collection(COLLECTIONS.attempts);
    this.counters = db.collection(COLLECTIONS.counters);
    this.idempotencyKeys = db.collection(COLLECTIONS.idempotencyKeys);
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
