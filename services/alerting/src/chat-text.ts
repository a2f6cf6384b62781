/**
 * The longest chat text a notice makes: Slack's section block takes 3,000 characters (its
 * `text` 40,000), a Teams message about 28 KB; both fit.
 */
export const MAX_CHAT_CHARS = 3_000;
/** The longest any one receiver-controlled field (URL, error) may be in a line. */
const MAX_FIELD_CHARS = 300;

export type ChatFormat = 'slack' | 'teams';

/** Teams' incoming webhooks (Office 365 connectors, Workflows): Markdown. Anything else: Slack-compatible mrkdwn. */
export function chatFormat(url: string): ChatFormat {
  const host = URL.parse(url)?.hostname ?? '';
  return /(^|\.)(webhook\.office\.com|outlook\.office\.com|office\.com|logic\.azure\.com|powerplatform\.com)$/.test(host) ? 'teams' : 'slack';
}

/**
 * Slack mrkdwn: `&`, `<` and `>` are the only control characters (`<!channel>`, `<url|label>`
 * mentions and links); escaped, a receiver's text is shown as written.
 */
export function escapeSlack(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Teams Markdown (and the HTML it accepts): the same entities, and Markdown's punctuation backslashed. */
export function escapeTeams(text: string): string {
  return escapeSlack(text).replace(/[\\`*_{}[\]()#+\-.!|~]/g, (c) => `\\${c}`);
}

/**
 * What chatText reads of a notice (a NoticeContent is one). Declared here, not imported from
 * notice-content.ts: that module builds on capLines, and the two would import each other.
 */
export interface ChatNotice {
  data: {
    summary: string;
    endpoints: readonly {
      url: string;
      environment: string;
      consumer: { external_id: string };
      failing_since: number | null;
      last_error: string | null;
      last_status: number | null;
      message_id?: string | null;
      delivery_id?: string | null;
    }[];
    /** alert.certificate_expiring: the certificates, told in their own lines. */
    certificates?: readonly ChatCertificate[];
  };
}

/** What a certificate line reads of an alert.certificate_expiring notice's `certificates` entry. */
export interface ChatCertificate {
  environment: string;
  url: string;
  consumer?: { external_id: string };
  subject: string;
  not_after: number;
  fingerprint_sha256: string;
  days_left: number;
}

/**
 * One certificate in words: `theirs` for what a tenant, its customer or a certificate wrote (URL,
 * customer id, subject, fingerprint), `ours` for the rest (plain text: both identity).
 */
export function certificateLine(c: ChatCertificate, theirs: (text: string) => string = (t) => t, ours: (text: string) => string = (t) => t): string {
  const left = c.days_left === 1 ? '1 day' : `${c.days_left} days`;
  const customer = c.consumer === undefined ? '' : `${ours(', customer ')}${theirs(c.consumer.external_id)}`;
  return (
    `- ${theirs(c.url)}${ours(` (${c.environment}`)}${customer}${ours('): ')}${theirs(c.subject)}` +
    `${ours(`, expires ${new Date(c.not_after).toISOString()} (${left} left), SHA-256 `)}${theirs(c.fingerprint_sha256)}`
  );
}

/** The notice as chat text in `format`: our words, every receiver-controlled field escaped and shortened, within MAX_CHAT_CHARS. */
export function chatText(content: ChatNotice, format: ChatFormat): string {
  const esc = format === 'slack' ? escapeSlack : escapeTeams;
  const field = (text: string) => esc(text.length > MAX_FIELD_CHARS ? `${text.slice(0, MAX_FIELD_CHARS)}…` : text);
  const endpoints = content.data.endpoints;
  if (endpoints.length === 0) return capLines(esc(content.data.summary).split('\n'), [], MAX_CHAT_CHARS);
  const head = esc(content.data.summary.split('\n')[0] ?? '');
  const certificates = content.data.certificates;
  if (certificates !== undefined)
    return capLines(
      [head],
      certificates.map((c) => certificateLine(c, field, esc)),
      MAX_CHAT_CHARS,
    );
  const lines = endpoints.map((e) => {
    const since = e.failing_since === null ? '' : `, failing since ${new Date(e.failing_since).toISOString()}`;
    const last = e.last_error ?? (e.last_status === null ? 'no response' : `HTTP ${e.last_status}`);
    const ids = e.message_id ? ` (message ${e.message_id}, delivery ${e.delivery_id ?? '?'})` : '';
    return `- ${field(e.url)} (${e.environment}, customer ${field(e.consumer.external_id)})${esc(since)}; last attempt: ${field(last)}${esc(ids)}`;
  });
  return capLines([head], lines, MAX_CHAT_CHARS);
}

/**
 * `head` then as many of `lines` as fit within `max` characters, the rest counted in a last
 * line ("…and 37 more endpoints").
 */
export function capLines(head: string[], lines: string[], max: number): string {
  const out = [...head];
  let length = out.join('\n').length;
  for (const [i, line] of lines.entries()) {
    const left = lines.length - i - 1;
    const tail = left === 0 ? 0 : `\n…and ${left} more endpoints`.length;
    if (length + 1 + line.length + tail > max) {
      out.push(`…and ${lines.length - i} more endpoint${lines.length - i === 1 ? '' : 's'}`);
      return out.join('\n').slice(0, max);
    }
    out.push(line);
    length += 1 + line.length;
  }
  return out.join('\n').slice(0, max);
}
