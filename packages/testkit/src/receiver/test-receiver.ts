import { createServer as createHttpsServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { testCa, untrustedCertificate, type ServerCertificate } from './test-ca.ts';
import { verifyWebhook } from './verify-webhook.ts';

/** One request as the receiver got it. */
export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  /** Lower-cased names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The body bytes exactly as received. */
  rawBody: Buffer;
  /** `rawBody` as UTF-8. */
  body: string;
  /** Unix ms when the body was complete. */
  receivedAt: number;
  /** Which TLS connection carried it: 1 for the first established, and so on. */
  connection: number;
  /** Whether that connection resumed an earlier TLS session instead of a full handshake. */
  tlsResumed: boolean;
  /** The sender's address as this receiver saw it (the source a relay bound its connection to). */
  remoteAddress: string;
}

/** How to answer. Everything is optional: the default is 200 with an empty body. */
export interface ReceiverAnswer {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer (the connection stays open until close()). */
  hang?: boolean;
  /** Answer a redirect to this URL (status 302 unless a 3xx `status` is given). */
  redirectTo?: string;
}

/** Computes the answer for each request. */
export type Responder = (request: RecordedRequest) => ReceiverAnswer | Promise<ReceiverAnswer>;

/** Options for {@link TestReceiver.start}. */
export interface TestReceiverOptions {
  /** Loopback address to listen on, e.g. 127.0.0.7. Default 127.0.0.1. */
  host?: string;
  /** Default: an ephemeral port. */
  port?: number;
  /** Default: the process's `localhost` certificate from {@link testCa}. */
  certificate?: ServerCertificate;
  /** Mutual TLS: refuse any client that does not present a certificate issued by this CA (PEM). */
  clientCa?: string;
  /** The keys its TLS session tickets are sealed with (48 bytes): a receiver restarted with the same ones resumes earlier sessions. Default: new ones. */
  ticketKeys?: Buffer;
}

/**
 * A real HTTPS webhook receiver on 127.0.0.1 (or another loopback address), reached as
 * `https://localhost:<port>` with a certificate from the process's test CA. It records
 * every request and answers as told (default 200). Close it in afterAll/afterEach.
 */
export class TestReceiver {
  /**
   * `https://localhost:<port>` (no trailing slash). On another `host`, `https://<host>:<port>`,
   * which the certificate does not cover: use a `*.receiver.wirehook.test` name mapped to
   * that address by an injected lookup instead.
   */
  readonly url: string;
  /** The address listened on. */
  readonly host: string;
  readonly port: number;
  /** The test CA a client must trust (NODE_EXTRA_CA_CERTS or an explicit `ca`). */
  readonly caPem: string;
  /** A file holding `caPem`, for NODE_EXTRA_CA_CERTS of a spawned process. */
  readonly caFile: string;
  readonly #server: Server;
  readonly #requests: RecordedRequest[] = [];
  readonly #connectionIds = new WeakMap<Socket, number>();
  #tcpConnections = 0;
  #tlsConnections = 0;
  #responder: Responder = () => ({});

  private constructor(server: Server, caPem: string, caFile: string) {
    this.#server = server;
    const address = server.address() as AddressInfo;
    this.host = address.address;
    this.port = address.port;
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.url = `https://${address.address === '127.0.0.1' ? 'localhost' : shown}:${this.port}`;
    this.caPem = caPem;
    this.caFile = caFile;
    server.on('connection', () => this.#tcpConnections++);
    server.on('secureConnection', (socket: Socket) => this.#connectionIds.set(socket, ++this.#tlsConnections));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void this.#handle(req, res));
  }

  /** Starts a receiver; rejects (e.g. EADDRINUSE) when the address cannot be bound. */
  static async start(options: TestReceiverOptions = {}): Promise<TestReceiver> {
    const ca = await testCa();
    const cert = options.certificate ?? ca;
    const mutual = options.clientCa === undefined ? {} : { requestCert: true, rejectUnauthorized: true, ca: options.clientCa };
    const tickets = options.ticketKeys === undefined ? {} : { ticketKeys: options.ticketKeys };
    const server = createHttpsServer({ key: cert.keyPem, cert: cert.certPem, ...mutual, ...tickets });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new TestReceiver(server, ca.caPem, ca.caFile);
  }

  /** Requests received so far, oldest first. */
  get requests(): readonly RecordedRequest[] {
    return this.#requests;
  }

  /** How many TCP connections the receiver has accepted so far (failed TLS handshakes too). */
  get connections(): number {
    return this.#tcpConnections;
  }

  /** Sets how every following request is answered, until told otherwise. */
  respondWith(answer: ReceiverAnswer | Responder): void {
    this.#responder = typeof answer === 'function' ? answer : () => answer;
  }

  /** Forgets the recorded requests (the answer stays as set). */
  clear(): void {
    this.#requests.length = 0;
  }

  /**
   * Checks a recorded request (default: the last) with the official standardwebhooks
   * library and returns its parsed JSON body. Throws when there is no such request or
   * its signature does not verify for `secret`.
   */
  verify(secret: string, request: RecordedRequest | undefined = this.#requests.at(-1)): unknown {
    if (request === undefined) throw new Error('the receiver has no request to verify');
    return verifyWebhook(secret, request);
  }

  /** Closes every connection it has, and keeps listening (a receiver's idle timeout, or a load balancer's). */
  closeConnections(): void {
    this.#server.closeAllConnections();
  }

  /** Stops listening and drops every connection, hung ones included. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks);
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: flattenHeaders(req),
      rawBody,
      body: rawBody.toString('utf8'),
      receivedAt: Date.now(),
      connection: this.#connectionIds.get(req.socket) ?? 0,
      tlsResumed: (req.socket as TLSSocket).isSessionReused(),
      remoteAddress: (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
    };
    this.#requests.push(recorded);
    let answer: ReceiverAnswer;
    try {
      answer = await this.#responder(recorded);
    } catch (err) {
      answer = { status: 500, body: `responder failed: ${(err as Error).message}` };
    }
    if (answer.hang) return;
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    if (res.destroyed) return;
    const headers = { ...answer.headers };
    let status = answer.status ?? 200;
    if (answer.redirectTo !== undefined) {
      if (status < 300 || status > 399) status = 302;
      headers.location = answer.redirectTo;
    }
    res.writeHead(status, headers).end(answer.body ?? '');
  }
}

/**
 * A receiver whose certificate comes from a CA nobody trusts; `caPem`/`caFile` are still
 * the process test CA, so a client configured like for any other receiver fails its
 * TLS handshake.
 */
export async function untrustedReceiver(options: Omit<TestReceiverOptions, 'certificate'> = {}): Promise<TestReceiver> {
  return TestReceiver.start({ ...options, certificate: await untrustedCertificate() });
}

/** A loopback port nothing listens on (bound, then released): connecting is refused. */
export async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
