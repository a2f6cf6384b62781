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

// The API's shapes (spec field names).
export interface Endpoint {
  id: string;
  consumer_id: string;
  url: string;
  description: string | null;
  event_types: string[] | null;
  fixed_ip: boolean;
  status: 'active' | 'paused' | 'disabled';
  disabled_reason: string | null;
  failing_since: number | null;
  created_at: number;
  retry: { count: number; interval: string };
}
export interface Attempt {
  id: string;
  at: number;
  response_status: number | null;
  response_head: string | null;
  duration_ms: number;
  error: string | null;
  via: 'direct' | 'relay';
  source_ip: string | null;
}
export interface Recovery {
  id: string;
  endpoint_id: string;
  since: number;
  status: 'running' | 'done' | 'stopped';
  total: number;
  queued: number;
  created_at: number;
  finished_at: number | null;
}
export interface EndpointDetail extends Endpoint {
  recent: Attempt[];
  retrying_count: number;
  recovery: Recovery | null;
}
export interface EventType {
  name: string;
  description: string | null;
  archived_at: number | null;
}
export interface Session {
  consumer: { id: string; external_id: string; name: string | null };
  environment: 'live' | 'test';
  locale: 'ja' | 'en' | null;
  expires_at: number;
  features: { recovery: boolean };
}
export interface MessageRow {
  id: string;
  event_type: string;
  status: 'pending' | 'retrying' | 'success' | 'failed';
  created_at: number;
  attempts: { count: number; last_at: number | null };
  endpoint_url: string | null;
}
export interface DeliveryDetail {
  id: string;
  endpoint_id: string;
  url: string;
  status: MessageRow['status'];
  attempt_count: number;
  next_attempt_at: number | null;
  attempts: Attempt[];
}
export interface MessageDetail {
  id: string;
  event_type: string;
  status: MessageRow['status'];
  created_at: number;
  deliveries: DeliveryDetail[];
}
