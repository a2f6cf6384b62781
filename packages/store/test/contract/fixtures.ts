import {
  ENDPOINT_WALK_BATCH,
  newId,
  type Consumer,
  type ConsumerId,
  type Endpoint,
  type EndpointId,
  type Environment,
  type ManualClock,
  type Org,
  type PlanName,
  type StoredSecret,
  type Tenant,
} from '@wirehook/core';
import type { Store } from '../../src/store.ts';

/**
 * A plain endpoint record (not stored): active, every event type, sent directly, no signature
 * header, the given id and times — what the services' test scenes need, with `overrides`. (The
 * contract's own `Fixtures.endpoint` sets every field to a non-default value instead.)
 */
export function plainEndpoint(id: EndpointId, consumerId: ConsumerId, at: number, overrides: Partial<Endpoint> = {}): Endpoint {
  return {
    id,
    consumerId,
    url: 'https://hooks.customer.test/wirehook',
    description: null,
    eventTypes: null,
    fixedIp: false,
    status: 'active',
    disabledReason: null,
    failingSince: null,
    createdAt: at,
    retry: { count: 0, interval: '1m' },
    compatSignature: null,
    ...overrides,
  };
}

/** The endpoint cap the contract uses unless a test is about the cap. */
export const DEFAULT_MAX_ENDPOINTS = 20;

/** How an adapter splits an endpoint's walk between a request and walkEndpoints (the contract's cases count on it). */
export interface ContractWalks {
  /** Deliveries a request's own call changes (SQLite ENDPOINT_WALK_BATCH; MongoDB its REQUEST_WALK_BATCH). */
  requestBatch: number;
  /** A disabling completion fails its own delivery in its batch (SQLite) or apart from it (MongoDB: the completion's own write). */
  completedFailedApart: boolean;
}

/** SQLite's: ENDPOINT_WALK_BATCH in the request, the completed delivery within it. */
export const SQLITE_WALKS: ContractWalks = { requestBatch: ENDPOINT_WALK_BATCH, completedFailedApart: false };

/**
 * Builders for contract tests. Every tenant they make is a fresh org, so tests may share
 * one store (and one database) without seeing each other's records.
 */
export class Fixtures {
  readonly clock: ManualClock;
  /** How many deliveries the adapter's request paths change of a walk in their own call (the rest by walkEndpoints). */
  readonly requestWalkBatch: number;
  /** Whether a completion that disables its endpoint fails its own delivery apart from the disabling's first batch. */
  readonly completedFailedApart: boolean;
  readonly #store: () => Store;

  constructor(store: () => Store, clock: ManualClock, walks: ContractWalks = SQLITE_WALKS) {
    this.#store = store;
    this.clock = clock;
    this.requestWalkBatch = walks.requestBatch;
    this.completedFailedApart = walks.completedFailedApart;
  }

  get store(): Store {
    return this.#store();
  }

  /** Creates a new org. */
  async org(plan: PlanName = 'free'): Promise<Org> {
    this.clock.advance(1_000);
    return this.store.orgs.create({
      id: newId('org', this.clock),
      name: 'Acme',
      plan,
      ownerEmail: 'owner@acme.example',
      createdAt: this.clock.now(),
    });
  }

  /** A tenant of a new org (of `plan`). */
  async tenant(env: Environment = 'live', plan: PlanName = 'free'): Promise<Tenant> {
    return { orgId: (await this.org(plan)).id, env };
  }

  /** Creates a consumer in `t`. */
  async consumer(t: Tenant, externalId = 'customer-1', name: string | null = 'Customer one'): Promise<Consumer> {
    this.clock.advance(1_000);
    return this.store.consumers.create(t, { id: newId('consumer', this.clock), externalId, name, createdAt: this.clock.now() });
  }

  /** An endpoint record (not stored) for `consumerId`, every field set, with `overrides`. */
  endpoint(consumerId: ConsumerId, overrides: Partial<Endpoint> = {}): Endpoint {
    this.clock.advance(1_000);
    return {
      id: newId('endpoint', this.clock),
      consumerId,
      url: 'https://hooks.acme.example/wirehook',
      description: 'primary receiver',
      eventTypes: ['invoice.paid', 'user.created'],
      fixedIp: true,
      status: 'active',
      disabledReason: 'was failing',
      failingSince: this.clock.now() - 60_000,
      createdAt: this.clock.now(),
      retry: { count: 5, interval: '30m' },
      compatSignature: { header: 'X-Acme-Signature', content: 'timestamp_body', encoding: 'hex', prefix: 'sha256=' },
      ordering: 'none',
      rateLimit: 50,
      heldUntil: null,
      type: 'http',
      // None: a scene that sends (the services' tests) opens headers with its SecretBox, and a
      // made-up sealed text would not open; the contract gives headers where it tests them.
      headers: null,
      // None, for the same reason: a made-up sealed key would not open; given where tested.
      tls: null,
      // None, for the same reason: a made-up sealed secret would not open; given where tested.
      auth: null,
      // None: a scene that sends would run it; given where tested.
      transformation: null,
      ...overrides,
    };
  }

  /** A secret record created now (by default never expiring). */
  secret(sealed: string, expiresAt: number | null = null): StoredSecret {
    return { sealed, createdAt: this.clock.now(), expiresAt };
  }

  /** Stores a new endpoint for `consumerId` with secret `sealed`. */
  async createEndpoint(
    t: Tenant,
    consumerId: ConsumerId,
    overrides: Partial<Endpoint> = {},
    sealed = 'v1.first',
    max = DEFAULT_MAX_ENDPOINTS,
  ): Promise<Endpoint> {
    const endpoint = this.endpoint(consumerId, overrides);
    return this.store.endpoints.create(t, endpoint, this.secret(sealed), max);
  }
}
