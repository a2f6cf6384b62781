// The page's calls to its token-scoped API. The token is the only credential: kept in memory
// and in this tab's sessionStorage (a reload works), never in cookies or localStorage.

export interface ApiErrorBody {
  error: string;
  message: string;
}

/** An answer other than 2xx, with the API's `{ error, message }` (shown next to the field). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, body: ApiErrorBody) {
    super(body.message);
    this.status = status;
    this.code = body.error;
  }
  /** The field a 422 names (`url: must be https`), for showing the message next to it. */
  get field(): string | undefined {
    return this.status === 422 ? /^([a-z_]+)(?:[.[]|:)/.exec(this.message)?.[1] : undefined;
  }
}

const STORAGE_KEY = 'wirehook-portal-token';
let token: string | null = null;

/** Takes the token from `/l/<token>` (then out of the address bar) or from this tab's storage. */
export function takeToken(): string | null {
  const fromPath = /^\/l\/(pt_[A-Za-z0-9_-]+)$/.exec(location.pathname)?.[1];
  if (fromPath) {
    token = fromPath;
    sessionStorage.setItem(STORAGE_KEY, fromPath);
  } else {
    token = sessionStorage.getItem(STORAGE_KEY);
  }
  return token;
}

export async function api<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const res = await fetch(`/api${path}`, {
    method,
    headers: { authorization: `Bearer ${token ?? ''}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    referrerPolicy: 'no-referrer',
  });
  if (res.status === 204) return undefined as T;
  const json = (await res.json().catch(() => ({ error: 'internal', message: res.statusText }))) as T | ApiErrorBody;
  if (!res.ok) throw new ApiError(res.status, json as ApiErrorBody);
  return json as T;
}

// The API's shapes: the types generated from docs/openapi.json (type-only: nothing of the
// client package reaches the page's bundle). The portal-only session and row field are declared here.
import type { Endpoint as ApiEndpoint, EventTypeList, MessageRow as ApiMessageRow } from '@wirehook/client/types';
export type {
  AttemptRow as Attempt,
  Delivery as DeliveryDetail,
  Endpoint,
  EndpointDetail,
  EventType,
  EventTypeList,
  MessageDetail,
  Recovery,
} from '@wirehook/client/types';

/** An event type as the list has it: no schema or examples (`has_schema` says whether it has one; GET /event-types/{name} reads them). */
export type EventTypeSummary = EventTypeList['items'][number];

/** How an endpoint receives its webhooks: `http` (POSTed to its URL) or `listen` (a `wirehook listen` connection forwards them to its URL). */
export type EndpointType = ApiEndpoint['type'];

/** Whether the endpoint is a `wirehook listen` connection (its URL is on a developer's machine, set by the CLI). */
export const isListener = (endpoint: { type: EndpointType }): boolean => endpoint.type === 'listen';

/** A row of the portal's message list: the API's, with its deliveries counted by status (portal-api/delivery-statuses.ts). */
export type MessageRow = ApiMessageRow & { delivery_statuses?: Partial<Record<'pending' | 'retrying' | 'success' | 'failed', number>> };

export interface Session {
  consumer: { id: string; external_id: string; name: string | null };
  environment: 'live' | 'test';
  locale: 'ja' | 'en' | null;
  expires_at: number;
  features: { recovery: boolean };
}
