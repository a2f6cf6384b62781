import type { Attempt, ConsumerId, Delivery, DeliveryId, DeliveryStatus, EndpointId, Message, MessageId, Tenant } from '@wirehook/core';
import { messageStatus, newId } from '@wirehook/core/without-schemas';
import type { DeliveryJob } from './delivery-port.ts';

// The message side of the Store port: intake writes messages with their deliveries (and
// bumps the usage counters), the API lists and reads them back.

/** A usage counter touched by a send, e.g. live messages of an org this month. */
export interface UsageCounter {
  /** Counter identity, e.g. `live:org_…:2026-11` or `test:org_…:2026-11-22`. */
  key: string;
  /**
   * Refuse the send (PlanLimitError) when the counter already stands at this; null: no limit.
   * Checked only for a counter with `increment`, and never on an idempotent replay.
   */
  limit: number | null;
  /** false: only read the counter (x-usage-month for a test-environment send). */
  increment: boolean;
  /** Message for the PlanLimitError. */
  limitMessage?: string;
  /** When the counter may be forgotten (Unix ms). */
  expiresAt: number;
}

/** What intake hands the store for one send. */
export interface NewMessage {
  id: MessageId;
  eventType: string;
  payload: string;
  createdAt: number;
  /** The consumer by external id; created with `newConsumerId` when it does not exist. */
  consumerExternalId: string;
  newConsumerId: ConsumerId;
  /** With a key: an earlier message of the tenant with the same key created at or after `idempotencySince` is returned instead. */
  idempotencyKey: string | null;
  idempotencySince: number;
  /**
   * The message's lane: on an endpoint with `ordering: key` its delivery gets the next
   * sequence of (endpoint, key) and is claimable only once the lane's earlier ones have ended.
   */
  orderingKey?: string | null;
  counters: UsageCounter[];
  /** A trial: a delivery to this endpoint of the consumer only (active or paused), whatever event types it takes. */
  onlyEndpointId?: EndpointId;
  /**
   * Claim up to `max` of the new due deliveries in the same transaction, leased until
   * `leaseUntil`, for a dispatcher in the caller's process (embedded mode): they come back
   * as `CreatedMessage.claimed`, ready to send, with no wake-up and no second transaction.
   * Optional for an adapter: one without it claims nothing and intake wakes the dispatchers.
   */
  claim?: { max: number; leaseUntil: number };
}

export interface CreatedMessage {
  message: Message;
  /** Deliveries of the message (of the earlier one on an idempotent replay). */
  deliveryIds: DeliveryId[];
  /**
   * Of the new deliveries, those due now and not claimed: their endpoint is active (a paused
   * one holds its delivery). Intake wakes the dispatchers for these only. Every adapter
   * returns it (the contract checks due + claimed = the deliveries not held); empty on an
   * idempotent replay, which writes nothing.
   */
  dueDeliveryIds: DeliveryId[];
  /**
   * Of the due deliveries, those claimed for the caller (`NewMessage.claim`), as a claim
   * returns them; they are not in `dueDeliveryIds`. Absent when nothing was claimed.
   */
  claimed?: DeliveryJob[];
  /** false: an earlier message with the same Idempotency-Key was returned; nothing was written. */
  created: boolean;
  /** Each counter's value after this send, by key. */
  counters: Record<string, number>;
}

export interface ConsumerRef {
  id: ConsumerId;
  externalId: string;
  name: string | null;
}

/** A message without its payload (up to 1 MB each), as the list reads it. */
export type MessageHead = Omit<Message, 'payload'>;

/** A row of the message list. */
export interface MessageSummary {
  message: MessageHead;
  consumer: ConsumerRef;
  /** URL of the message's first delivery; null when it has none. */
  endpointUrl: string | null;
  attemptCount: number;
  lastAttemptAt: number | null;
}

/**
 * A page of the message list. `resumeAfterId`: the store stopped before reaching `since` (or
 * the oldest message) to bound its work — a filter it tests message by message over a long
 * window (MongoDB: LIST_SCAN_BUDGET) — so the list goes on strictly older than this id, however
 * few `rows` this page holds (none, even). null when `rows` is all there is before `afterId`
 * (up to the limit).
 */
export interface MessagePage {
  rows: MessageSummary[];
  resumeAfterId: string | null;
}

/** A message with its deliveries, each with its newest attempts (bounded). */
export interface MessageDetail {
  message: Message;
  consumer: ConsumerRef;
  /** `attempts`: the newest DELIVERY_ATTEMPTS_SHOWN, oldest of them first; `olderAttempts`: whether there are more. */
  deliveries: { delivery: Delivery; attempts: Attempt[]; olderAttempts: boolean }[];
}

/**
 * How much earlier than its createdAt a message's id may be stamped (a clock stepping back
 * between the two reads). Adapters bound a `since` query by id from this much before `since`
 * (ids are stamped with their time and the list's indexes end in the id); createdAt decides.
 */
export const SINCE_ID_MARGIN_MS = 60_000;

export interface MessageQuery {
  /** Only this consumer's messages (the portal, scoped to one consumer). */
  consumerId?: ConsumerId;
  status?: DeliveryStatus;
  eventType?: string;
  /** Partial match, ignoring (ASCII) case, on message id, event type, consumer external id, Idempotency-Key; `%` and `_` are literal. */
  q?: string;
  /** Only messages created at or after this. */
  since?: number;
  /** Items strictly older than this message id (newest first). */
  afterId?: string;
  limit: number;
}

export interface MessageRepo {
  /**
   * Finds or creates the consumer, then writes the message and one `pending` delivery
   * (next attempt now) per endpoint of that consumer that is not disabled and takes the
   * event type, and bumps the counters — all in one transaction.
   * @throws PlanLimitError when a counter with a limit is already at it (nothing written).
   */
  create(t: Tenant, input: NewMessage): Promise<CreatedMessage>;
  /** The message with each delivery's newest DELIVERY_ATTEMPTS_SHOWN attempts (never the whole history). */
  get(t: Tenant, id: MessageId): Promise<MessageDetail | null>;
  /** Newest first, up to `query.limit` rows; see MessagePage for a page the store cut short. */
  list(t: Tenant, query: MessageQuery): Promise<MessagePage>;
  /**
   * How many of each message's deliveries are in each status (a message without deliveries, or
   * not the tenant's, is left out): one read for a page of messages.
   * @throws RangeError for more than MAX_PAGE_SIZE ids.
   */
  deliveryStatuses(t: Tenant, messageIds: readonly MessageId[]): Promise<Record<string, Partial<Record<DeliveryStatus, number>>>>;
  /** Reads a usage counter (0 when absent). */
  counter(key: string): Promise<number>;
  /** Retention: removes up to `batch` messages created before `before`, with their deliveries and attempts. @returns how many messages went. */
  deleteBefore(before: number, batch: number): Promise<number>;
}

/**
 * The id of a delivery a NewMessage creates, made by the store as it matches endpoints and
 * stamped with the message's `createdAt` (the caller's clock): monotonic, so a message's
 * deliveries sort in the order they were made. (Intake used to send one id per possible
 * endpoint, twenty, to use one: 8.6 % of the API thread's allocations.)
 */
export function newDeliveryId(input: Pick<NewMessage, 'createdAt'>): DeliveryId {
  return newId('delivery', { now: () => input.createdAt });
}

/** The message a NewMessage creates for `consumerId`, with `deliveries` pending: what each store writes and answers. */
export function acceptedMessage(input: NewMessage, consumerId: ConsumerId, deliveries: number): Message {
  return {
    id: input.id,
    consumerId,
    eventType: input.eventType,
    payload: input.payload,
    idempotencyKey: input.idempotencyKey,
    orderingKey: input.orderingKey ?? null,
    createdAt: input.createdAt,
    status: messageStatus(Array.from({ length: deliveries }, () => ({ status: 'pending' as const }))),
  };
}
