import { openApiCheck } from './openapi-check.ts';

/** A response as tests look at it. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * A small JSON client for the public API, bound to one key. Every response it receives is
 * checked against docs/openapi.json (status listed, body and headers as documented): a
 * mismatch throws, so the document cannot drift from what the API does.
 */
export class ApiClient {
  readonly baseUrl: string;
  readonly key: string | undefined;

  constructor(baseUrl: string, key?: string) {
    this.baseUrl = baseUrl;
    this.key = key;
  }

  /** The same server with another key (or none). */
  as(key: string | undefined): ApiClient {
    return new ApiClient(this.baseUrl, key);
  }

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const res = await fetch(this.baseUrl + path, {
      method,
      headers: {
        ...(this.key ? { authorization: `Bearer ${this.key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text so the assertion shows it
    }
    const problems = openApiCheck().problems(method, this.baseUrl + path, res.status, res.headers, parsed);
    if (problems.length) throw new Error(`the response does not match docs/openapi.json:\n${problems.join('\n')}`);
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  get<T = any>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }
  put<T = any>(path: string, body?: unknown) {
    return this.request<T>('PUT', path, body);
  }
  patch<T = any>(path: string, body?: unknown) {
    return this.request<T>('PATCH', path, body);
  }
  delete<T = any>(path: string) {
    return this.request<T>('DELETE', path);
  }
}
