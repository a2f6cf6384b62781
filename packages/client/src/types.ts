// Friendly names for the generated OpenAPI types (api-types.ts), so callers never spell
// `components['schemas']['…']`. Only aliases live here: the generated file stays the source.
import type { components, operations } from './api-types.ts';

type Schemas = components['schemas'];

/** Any JSON value: what a message's `payload` may be. */
export type JsonValue = Schemas['JsonValue'];

/** An error code of the API's `{ error, message }` body. */
export type ErrorCode = Schemas['Error']['error'];
/** The body of every error response. */
export type ErrorBody = Schemas['Error'];

/** A message as listed (`GET /v1/messages`). */
export type MessageRow = Schemas['MessageRow'];
/** A message with its payload and each delivery's attempts. */
export type MessageDetail = Schemas['MessageDetail'];
/** A page of messages. */
export type MessageRowPage = Schemas['MessageRowPage'];
/** The answer to a send: the message id and how many deliveries were created. */
export type MessageAccepted = Schemas['MessageAccepted'];
/** Delivery status, and the status a message is derived to. */
export type MessageStatus = MessageRow['status'];
/** One delivery of a message to one endpoint. */
export type Delivery = Schemas['Delivery'];
/** One attempt of a delivery. */
export type AttemptRow = Schemas['AttemptRow'];
export type AttemptRowPage = Schemas['AttemptRowPage'];

/** One of your customers. */
export type Consumer = Schemas['Consumer'];
/** A page of consumers. */
export type ConsumerPage = Schemas['ConsumerPage'];
/** A link to the customer settings page, valid 15 minutes. */
export type PortalLink = Schemas['PortalLink'];

/** An endpoint (a URL of a consumer that receives webhooks). */
export type Endpoint = Schemas['Endpoint'];
/** An endpoint with its signing secret: the create answer, the only one that shows it. */
export type EndpointWithSecret = Schemas['EndpointWithSecret'];
/** An endpoint with its recent attempts, retrying count and latest recovery. */
export type EndpointDetail = Schemas['EndpointDetail'];
/** An endpoint's health over a window: attempts, successes, failures by class, latency, waiting deliveries, a series. */
export type EndpointStats = Schemas['EndpointStats'];
/** A page of the environment's endpoints (`next_cursor`: null unless more follow). */
export type EndpointList = Schemas['EndpointList'];
export type EndpointPage = EndpointList;
/** An endpoint's retry count and interval. */
export type RetryPolicy = Schemas['RetryPolicy'];
/** An extra signature header for receivers of another webhook format. */
export type CompatSignature = Schemas['CompatSignature'];
/** A new signing secret (`whsec_…`). */
export type RotatedSecret = Schemas['RotatedSecret'];
export type SimulateTransformationRequest = Schemas['SimulateTransformationRequest'];
export type TransformationSimulation = Schemas['TransformationSimulation'];
/** The addresses fixed_ip endpoints are sent from; removed ones listed with `retiring_at` for 30 days. */
export type EgressIpList = Schemas['EgressIpList'];
/** A bulk re-send of an endpoint's failed deliveries. */
export type Recovery = Schemas['Recovery'];

/** A registered event type. */
export type EventType = Schemas['EventType'];
/** Every registered event type, by name. */
export type EventTypeList = Schemas['EventTypeList'];
export type EventTypeVersionList = Schemas['EventTypeVersionList'];
export type EventCatalogDocument = Schemas['EventCatalogDocument'];

/** When the organization's alert targets are notified. */
export type AlertConditions = Schemas['AlertConditions'];
/** Where failure notifications go: a webhook, a chat webhook or an e-mail address. */
export type AlertTarget = Schemas['AlertTarget'];
/** A new alert target; a webhook target carries its secret, shown only here. */
export type AlertTargetCreated = Schemas['AlertTargetCreated'];
/** An alert target with its latest notice attempts. */
export type AlertTargetDetail = Schemas['AlertTargetDetail'];
export type AlertTest = Schemas['AlertTest'];
/** The organization's alert targets. */
export type AlertTargetList = Schemas['AlertTargetList'];
/** One attempt to deliver a notice to an alert target. */
export type NoticeAttempt = Schemas['NoticeAttempt'];

/** Body of `messages.send`. */
export type SendMessageRequest = Schemas['SendMessageRequest'];
/** Body of `consumers.create`. */
export type CreateConsumerRequest = Schemas['CreateConsumerRequest'];
/** Body of `consumers.portalLink`. */
export type PortalLinkRequest = Schemas['PortalLinkRequest'];
/** Body of `endpoints.create`. */
export type CreateEndpointRequest = Schemas['CreateEndpointRequest'];
/** Body of `endpoints.update`: every field optional; `retry: null` restores the default. */
export type UpdateEndpointRequest = Schemas['UpdateEndpointRequest'];
/** Body of `endpoints.recover`. */
export type RecoverRequest = Schemas['RecoverRequest'];
/** Body of `eventTypes.create`. */
export type CreateEventTypeRequest = Schemas['CreateEventTypeRequest'];
export type UpdateEventTypeRequest = Schemas['UpdateEventTypeRequest'];
/** Body of `alerts.updateConditions`: only the fields given change. */
export type AlertConditionsUpdate = Schemas['AlertConditionsUpdate'];
/** Body of `alerts.createTarget`. */
export type CreateAlertTargetRequest = Schemas['CreateAlertTargetRequest'];

// The document types numeric query parameters as digit strings; callers pass numbers.
type Numeric<Q, K extends PropertyKey> = Omit<NonNullable<Q>, K & keyof NonNullable<Q>> & { [P in K]?: number };

/** Query of `messages.list`; `limit` 1–100, `since` Unix ms. */
export type ListMessagesQuery = Numeric<operations['listMessages']['parameters']['query'], 'limit' | 'since'>;
/** Query of `consumers.list`; `limit` 1–100. */
export type ListConsumersQuery = Numeric<operations['listConsumers']['parameters']['query'], 'limit'>;
/** Query of `deliveries.attempts`: `cursor` (a delivery's `attempts_next_cursor`, or a page's `next_cursor`) and `limit`. */
export type ListDeliveryAttemptsQuery = Numeric<operations['listDeliveryAttempts']['parameters']['query'], 'limit'>;
/** Query of `endpoints.list`. */
export type ListEndpointsQuery = NonNullable<operations['listEndpoints']['parameters']['query']>;
/** Query of `endpoints.stats`: `window` 1h, 24h (default) or 7d. */
export type EndpointStatsQuery = NonNullable<operations['getEndpointStats']['parameters']['query']>;
