// A deadline on the whole SMTP transaction: a server that answers every command late — never
// silent long enough for nodemailer's socketTimeout — must not receive a mail whose try already
// ended at its bound (the connection is closed then), and receives a mail that fits its bound
// exactly once. The outbox's bound is 10 s with a server 3 s a reply; here both are a tenth of
// that (the same four replies past the bound), so the file takes 3 s, not 25. A tiny SMTP server
// on a loopback port (node:net) counts what it got.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SmtpMailer } from './smtp-mailer.ts';

const REPLY_AFTER_MS = 300;
/** The try's bound: EHLO, MAIL, RCPT and DATA take 4 × REPLY_AFTER_MS, past it, before DATA's end could be sent. */
const BOUND_MS = 1_000;
let server: Server;
let port: number;
/** Mails whose end of data the server received. */
let received = 0;
/** Resolves on the next connection's close. */
let closed: Promise<void> = Promise.resolve();

beforeAll(async () => {
  server = createServer((socket: Socket) => {
    closed = new Promise((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    const reply = (line: string) => setTimeout(() => socket.writable && socket.write(`${line}\r\n`), REPLY_AFTER_MS);
    let data = false;
    let buffer = '';
    socket.write('220 slow.test ESMTP\r\n');
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        if (data) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          buffer = buffer.slice(end + 5);
          data = false;
          received++;
          reply('250 queued');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const command = buffer.slice(0, eol).toUpperCase();
        buffer = buffer.slice(eol + 2);
        if (command.startsWith('DATA')) {
          data = true;
          reply('354 go ahead');
        } else if (command.startsWith('QUIT')) {
          reply('221 bye');
        } else reply('250 slow.test');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const message = { from: 'alerts@wirehook.test', to: 'ops@acme.test', subject: '[Wirehook] Test notice', text: 'hello', messageId: '<ntc_1.0@wirehook.test>' };

it('a try cancelled at its bound closes the connection: the slow server never gets that mail', async () => {
  received = 0;
  const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${port}`, timeoutMs: BOUND_MS });
  // The server's delays are its own timers: DATA's end cannot be sent before 4 × 300 ms, past the 1,000 ms bound, however busy the machine.
  await expect(mailer.send(message, AbortSignal.timeout(BOUND_MS))).rejects.toThrow();
  await closed; // the server saw the client close the connection: nothing more can reach it
  expect(received).toBe(0);
}, 30_000);

it('a try that fits its bound delivers the mail once', async () => {
  received = 0;
  const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${port}`, timeoutMs: 30_000 });
  await mailer.send(message, AbortSignal.timeout(30_000));
  await closed;
  expect(received).toBe(1);
}, 40_000);
