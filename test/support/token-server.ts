// A real OAuth 2.0 token endpoint for delivery tests (RFC 6749 §4.4, client credentials), on a
// test receiver (https://rN.receiver.wirehook.test:8443): it checks the client's id and secret
// (HTTP Basic or in the form, as configured), issues random tokens that expire, can revoke them
// or fail, and gives receivers a responder that accepts only its live tokens.
import { randomBytes } from 'node:crypto';
import type { ReceiverAnswer, RecordedRequest, Responder } from '@wirehook/testkit';
import { startReceiver, type NamedReceiver } from './receivers.ts';

export interface TokenServerOptions {
  clientId?: string;
  clientSecret?: string;
  method?: 'client_secret_basic' | 'client_secret_post';
  /** expires_in of each token, seconds. Default 3600. */
  expiresIn?: number;
  /** The receiver to serve on (a client-certificate one, say); default a new one. */
  on?: NamedReceiver;
}

export class TokenServer {
  readonly named: NamedReceiver;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly method: 'client_secret_basic' | 'client_secret_post';
  expiresIn: number;
  /** Tokens issued, in order, with when they expire (real time: the receiver checks them). */
  readonly issued: { token: string; expiresAt: number }[] = [];
  readonly #revoked = new Set<string>();
  /** While set, every token request is answered with it. */
  failWith: ReceiverAnswer | null = null;
  /** Answers requests to other paths than the token endpoint's (a receiver on the same host); default 404. */
  otherwise: Responder = () => ({ status: 404 });

  private constructor(named: NamedReceiver, options: TokenServerOptions) {
    this.named = named;
    this.clientId = options.clientId ?? 'wirehook-client';
    this.clientSecret = options.clientSecret ?? `cs_${randomBytes(12).toString('hex')}`;
    this.method = options.method ?? 'client_secret_basic';
    this.expiresIn = options.expiresIn ?? 3_600;
    named.receiver.respondWith((request) => this.#answer(request));
  }

  static async start(options: TokenServerOptions = {}): Promise<TokenServer> {
    return new TokenServer(options.on ?? (await startReceiver()), options);
  }

  get url(): string {
    return this.named.url('/oauth/token');
  }

  /** The `auth` of an endpoint using this server. */
  auth(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      type: 'oauth2_client_credentials',
      token_url: this.url,
      client_id: this.clientId,
      client_secret: this.clientSecret,
      token_auth_method: this.method,
      ...extra,
    };
  }

  /** Token requests received (each issued a token, or not). */
  get requests(): readonly RecordedRequest[] {
    return this.named.receiver.requests.filter((r) => r.path.startsWith('/oauth/token'));
  }

  revoke(token: string): void {
    this.#revoked.add(token);
  }

  isLive(token: string): boolean {
    const issued = this.issued.find((i) => i.token === token);
    return issued !== undefined && issued.expiresAt > Date.now() && !this.#revoked.has(token);
  }

  /** A receiver's responder: 401 without one of this server's live tokens as `Authorization: Bearer`, else `then`. */
  requireBearer(then: ReceiverAnswer = {}): Responder {
    return (request) => {
      const token = /^Bearer (\S+)$/.exec(request.headers['authorization'] ?? '')?.[1];
      if (token === undefined || !this.isLive(token)) return { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } };
      return then;
    };
  }

  close(): Promise<void> {
    return this.named.receiver.close();
  }

  #answer(request: RecordedRequest): ReceiverAnswer | Promise<ReceiverAnswer> {
    if (!request.path.startsWith('/oauth/token')) return this.otherwise(request);
    if (this.failWith !== null) return this.failWith;
    const form = new URLSearchParams(request.body);
    if (request.method !== 'POST' || !(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return json(400, { error: 'invalid_request' });
    }
    if (form.get('grant_type') !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' });
    const [id, secret] = this.#client(request, form);
    if (id !== this.clientId || secret !== this.clientSecret) return json(401, { error: 'invalid_client' });
    const token = `at_${randomBytes(18).toString('base64url')}`;
    this.issued.push({ token, expiresAt: Date.now() + this.expiresIn * 1_000 });
    return json(200, { access_token: token, token_type: 'Bearer', expires_in: this.expiresIn, scope: form.get('scope') ?? undefined });
  }

  /** The client's id and secret, from where this server's method puts them (RFC 6749 §2.3.1). */
  #client(request: RecordedRequest, form: URLSearchParams): [string | null, string | null] {
    if (this.method === 'client_secret_post') return [form.get('client_id'), form.get('client_secret')];
    const basic = /^Basic (\S+)$/.exec(request.headers['authorization'] ?? '')?.[1];
    if (basic === undefined) return [null, null];
    const [id = '', secret = ''] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    const decode = (v: string) => decodeURIComponent(v.replace(/\+/g, ' '));
    return [decode(id), decode(secret)];
  }
}

function json(status: number, body: unknown): ReceiverAnswer {
  return { status, body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } };
}
