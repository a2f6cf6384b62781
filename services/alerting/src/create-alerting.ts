import type { Clock, SecretBox } from '@wirehook/core';
import { AddressPolicy, HttpEgress, lookupWithOverrides, parseResolveOverrides, systemLookup, type LookupFn } from '@wirehook/egress';
import type { Component, Logger } from '@wirehook/platform';
import type { Store } from '@wirehook/store';
import type { Registry } from 'prom-client';
import { AlertingWorker } from './alerting-worker.ts';
import { DEFAULT_SEND_TIMEOUT_MS } from './notice-outbox.ts';
import { NoticeSender } from './notice-sender.ts';
import { SmtpMailer } from './smtp-mailer.ts';

/**
 * The alerting engine, wired: its own egress for notices (the delivery rules), e-mail when
 * SMTP_URL is set (nodemailer: SMTP with STARTTLS and auth, the maintained standard), the
 * worker. Embedded mode and the alerting process both build it here.
 */
export function createAlerting(
  config: { DELIVERY_ALLOW_HOSTS: string; DELIVERY_RESOLVE: string; SMTP_URL?: string | undefined; ALERT_EMAIL_FROM?: string | undefined },
  deps: {
    store: Store;
    clock: Clock;
    logger: Logger;
    secretBox: SecretBox;
    registry?: Registry;
    lookup?: LookupFn;
    ca?: string;
    tickMs?: number;
    /** Bound on one send to one target; default 10 s. */
    sendTimeoutMs?: number;
  },
): { worker: AlertingWorker; components: Component[] } {
  const sendTimeoutMs = deps.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
  const egress = new HttpEgress({
    policy: new AddressPolicy({ allowHosts: config.DELIVERY_ALLOW_HOSTS }),
    lookup: lookupWithOverrides(parseResolveOverrides(config.DELIVERY_RESOLVE), deps.lookup ?? systemLookup),
    ca: deps.ca,
    connectionsPerOrigin: 2,
    // The egress limits the wait for a connection and then the answer, each: half the bound apiece.
    timeoutMs: Math.max(1, Math.floor(sendTimeoutMs / 2)),
  });
  // A deadline on the whole SMTP transaction (the outbox's bound closes the connection), not only on silence.
  const mail = config.SMTP_URL
    ? { mailer: new SmtpMailer({ url: config.SMTP_URL, timeoutMs: sendTimeoutMs }), from: config.ALERT_EMAIL_FROM ?? 'wirehook@localhost' }
    : null;
  const worker = new AlertingWorker({
    store: deps.store,
    clock: deps.clock,
    logger: deps.logger.child({ component: 'alerting' }),
    sender: new NoticeSender({ egress, secretBox: deps.secretBox, mail }),
    registry: deps.registry,
    tickMs: deps.tickMs,
    sendTimeoutMs,
  });
  const close: Component = {
    name: 'alerting-egress',
    start: async () => {},
    stop: async () => {
      await egress.close();
    },
  };
  return { worker, components: [close, worker] };
}
