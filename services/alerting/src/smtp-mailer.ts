import { connect, type Socket } from 'node:net';
import { requiredOnFirstUse } from '@wirehook/core';
import type * as Nodemailer from 'nodemailer';

/**
 * nodemailer, required by the first mail, not imported with the service: most alerting processes
 * send none, and its ESM build imports `node:http`, which loads Node's bundled undici (see
 * @wirehook/core's nodeHttp) — together ≈ 90 ms of CPU at every start.
 */
const nodemailer = requiredOnFirstUse<typeof Nodemailer>(import.meta.url, 'nodemailer');

/** One e-mail: the envelope and plain text. */
export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  /**
   * The same for every try of one notice to one address: a try cut off after its data
   * went out may still arrive, and its retry then brings a second copy that mail systems and
   * readers can tell is the same message.
   */
  messageId: string;
}

/**
 * Sends e-mail over SMTP (nodemailer: STARTTLS, auth, the maintained standard) with a deadline
 * on the whole transaction: a transport per send, on a socket opened here, destroyed when the
 * signal aborts — so a server that answers every command slowly cannot take a mail past its
 * bound and then deliver it anyway (nodemailer's own timeouts only measure silence).
 */
export class SmtpMailer {
  readonly #url: string;
  readonly #timeoutMs: number;

  constructor(options: { url: string; timeoutMs: number }) {
    this.#url = options.url;
    this.#timeoutMs = options.timeoutMs;
  }

  /** @throws Error when the server refuses the mail, the connection fails, or `signal` aborts first (the connection is closed). */
  async send(message: MailMessage, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    let socket: Socket | undefined;
    const ms = this.#timeoutMs;
    const transport = nodemailer().createTransport({
      url: this.#url,
      connectionTimeout: ms,
      greetingTimeout: ms,
      socketTimeout: ms,
      getSocket: (options, callback) => {
        socket = connect({ host: options.host ?? 'localhost', port: Number(options.port ?? (options.secure ? 465 : 587)) });
        socket.once('connect', () => callback(null, { connection: socket }));
        socket.once('error', (err) => callback(err));
      },
    });
    const cancel = () => socket?.destroy(new Error(`smtp: cancelled at its deadline (${String(signal?.reason?.message ?? 'aborted')})`));
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      await Promise.race([
        transport.sendMail(message),
        // The socket may be closed before nodemailer notices (or before it opened one): the abort ends the wait too.
        new Promise<never>((_, reject) => {
          if (signal) signal.addEventListener('abort', () => reject(new Error('cancelled at its deadline')), { once: true });
        }),
      ]);
    } finally {
      signal?.removeEventListener('abort', cancel);
      socket?.destroy();
      transport.close();
    }
  }
}
