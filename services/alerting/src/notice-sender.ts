import { createHash } from 'node:crypto';
import { signingKeyObject, standardWebhookHeaders, USER_AGENT, type SecretBox } from '@wirehook/core';
import type { HttpEgress } from '@wirehook/egress';
import type { AlertTarget, NoticeDelivery } from '@wirehook/store';
import { chatFormat, chatText } from './chat-text.ts';
import type { NoticeContent } from './notice-content.ts';
import type { SmtpMailer } from './smtp-mailer.ts';

/** What one try at a target did (failures are data). */
export interface NoticeResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** What the engine needs of a sender (tests hand in their own). */
export type NoticeSenderPort = Pick<NoticeSender, 'canEmail' | 'send' | 'sendOwnerEmail'>;

/**
 * Sends a notice to a target: webhook targets get a Standard Webhooks-signed POST (the
 * target's secret; `webhook-id` = the notice's id, the same on every retry), chat targets a
 * Slack-compatible `{ text, blocks }` (Teams' webhooks `{ text }` in Markdown), every
 * receiver-controlled field escaped and the text capped, e-mail targets a plain-text mail. Webhook and chat go
 * through the delivery egress (time limit, SSRF guard, no redirects).
 */
export class NoticeSender {
  readonly #egress: HttpEgress;
  readonly #secretBox: SecretBox;
  readonly #mail: { mailer: SmtpMailer; from: string } | null;

  constructor(deps: { egress: HttpEgress; secretBox: SecretBox; mail: { mailer: SmtpMailer; from: string } | null }) {
    this.#egress = deps.egress;
    this.#secretBox = deps.secretBox;
    this.#mail = deps.mail;
  }

  /** Whether e-mail can be sent (SMTP_URL set). */
  get canEmail(): boolean {
    return this.#mail !== null;
  }

  /** The owner's usage e-mail (not a target: the organization's owner_email). */
  sendOwnerEmail(to: string, notice: NoticeDelivery, signal?: AbortSignal): Promise<NoticeResult> {
    return this.#email(to, notice.id, JSON.parse(notice.body) as NoticeContent, signal);
  }

  /**
   * One try at the target. `signal` cancels an e-mail's SMTP transaction (its connection is
   * closed); webhook and chat sends are bounded by the egress's own limits.
   */
  async send(target: AlertTarget, notice: NoticeDelivery, signal?: AbortSignal): Promise<NoticeResult> {
    const content = JSON.parse(notice.body) as NoticeContent;
    if (target.type === 'email') return this.#email(target.address!, notice.id, content, signal);
    let request: { headers: Record<string, string>; body: string };
    if (target.type === 'webhook') {
      // Signed like a delivery; the receiver's clock judges the timestamp, so the real time.
      const key = signingKeyObject(this.#secretBox.open(target.sealedSecret!, target.id));
      request = { headers: standardWebhookHeaders([key], notice.id, Date.now(), notice.body), body: notice.body };
    } else {
      // A receiver's URL, error or Location header must not ping a channel or make a link: escaped for the chat's format.
      const format = chatFormat(target.url!);
      const text = chatText(content, format);
      const body = JSON.stringify(format === 'teams' ? { text } : { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });
      request = { headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT }, body };
    }
    const r = await this.#egress.send({ url: target.url!, poolKey: target.id, ...request });
    return { ok: r.ok, status: r.status, error: r.error, durationMs: r.durationMs };
  }

  async #email(to: string, noticeId: string, content: NoticeContent, signal?: AbortSignal): Promise<NoticeResult> {
    const started = performance.now();
    if (this.#mail === null) return { ok: false, status: null, error: 'smtp: no SMTP_URL configured', durationMs: 0 };
    try {
      const subject = {
        'alert.endpoint_disabled': 'Webhook endpoint stopped automatically',
        'alert.delivery_failure': 'Webhook deliveries are failing',
        'alert.pending_retries': 'Many webhook deliveries are waiting to retry',
        'alert.usage': `Webhook usage at ${content.data.percent ?? ''} % of the plan`,
        'alert.egress_ips': 'The addresses fixed_ip webhooks are sent from changed',
        'alert.certificate_expiring': 'Client certificates of webhook endpoints expire soon',
        'alert.test': 'Test notice',
      }[content.type];
      await this.#mail.mailer.send(
        {
          from: this.#mail.from,
          to,
          subject: `[Wirehook] ${subject}`,
          text: `${content.data.summary}\n\nEnvironment: ${content.data.environments.join(', ')}`,
          messageId: noticeMessageId(noticeId, to, this.#mail.from),
        },
        signal,
      );
      return { ok: true, status: null, error: null, durationMs: Math.round(performance.now() - started) };
    } catch (err) {
      return { ok: false, status: null, error: `smtp: ${(err as Error).message}`, durationMs: Math.round(performance.now() - started) };
    }
  }
}

/**
 * The Message-ID of a notice's e-mail to `to`: the same on every try (a retry's copy of a try
 * that arrived after its deadline is the same message), another for each address. The domain
 * is the sender's, as RFC 5322 recommends for uniqueness.
 */
export function noticeMessageId(noticeId: string, to: string, from: string): string {
  const domain = /@([^@>\s]+)>?\s*$/.exec(from)?.[1] ?? 'wirehook.invalid';
  const recipient = createHash('sha256').update(to.toLowerCase()).digest('hex').slice(0, 16);
  return `<${noticeId}.${recipient}@${domain}>`;
}
