import { z } from 'zod';
import { ENVIRONMENTS } from './secrets.ts';

// The body of a failure notice sent to a webhook alert target: the alerting engine builds it,
// the gateway's test notice too, and the OpenAPI document's `webhooks.failureNotice` is
// generated from this schema (one source).

export const ALERT_NOTICE_TYPES = [
  'alert.delivery_failure',
  'alert.endpoint_disabled',
  'alert.pending_retries',
  'alert.usage',
  'alert.egress_ips',
  'alert.certificate_expiring',
  'alert.test',
] as const;
export type AlertNoticeType = (typeof ALERT_NOTICE_TYPES)[number];

const unixMs = (description: string) => z.number().int().nullable().describe(`${description} (Unix milliseconds)`);

export const alertNoticeSchema = z
  .object({
    type: z.enum(ALERT_NOTICE_TYPES).describe('what the notice is about'),
    timestamp: z.iso
      .datetime()
      .describe('when the notice was made (ISO 8601 UTC, milliseconds), as a delivery’s `timestamp`: the same on every try')
      .meta({ examples: ['2026-01-01T09:30:00.000Z'] }),
    data: z.object({
      environments: z.array(z.enum(ENVIRONMENTS)).describe('the environments it concerns'),
      endpoints: z
        .array(
          z.object({
            id: z.string().describe('ep_…'),
            url: z.string(),
            environment: z.enum(ENVIRONMENTS),
            consumer: z.object({ external_id: z.string() }),
            failing_since: unixMs('the first failed attempt of the current streak'),
            last_error: z.string().nullable(),
            last_status: z.number().int().nullable(),
            message_id: z.string().nullable().optional().describe('msg_… of the last failed attempt, when known'),
            delivery_id: z.string().nullable().optional().describe('dlv_… of the last failed attempt, when known'),
          }),
        )
        .describe(
          'alert.delivery_failure, alert.endpoint_disabled and alert.certificate_expiring: the endpoints concerned ' +
            '(alert.certificate_expiring: last_error and last_status null); empty for the other types',
        ),
      summary: z.string().describe('the same in English words (what chat and e-mail targets get)'),
      retrying: z.number().int().optional().describe('alert.pending_retries: deliveries waiting to retry in the environment'),
      threshold: z.number().int().optional().describe('alert.pending_retries and alert.usage: the threshold crossed'),
      used: z.number().int().optional().describe('alert.usage: this month’s live messages'),
      limit: z.number().int().optional().describe('alert.usage: the plan’s monthly limit'),
      percent: z.number().int().optional().describe('alert.usage: the percentage of the limit reached'),
      added: z.array(z.string()).optional().describe('alert.egress_ips: new addresses'),
      retiring: z.array(z.string()).optional().describe('alert.egress_ips: addresses taken out'),
      retiring_at: unixMs('alert.egress_ips: until when the taken-out addresses stay listed').optional(),
      addresses: z
        .array(z.object({ ip: z.string(), family: z.union([z.literal(4), z.literal(6)]), retiring_at: unixMs('null: not retiring') }))
        .optional()
        .describe('alert.egress_ips: the whole list as GET /v1/egress-ips gives it'),
      certificates: z
        .array(
          z.object({
            endpoint_id: z.string().describe('ep_…'),
            environment: z.enum(ENVIRONMENTS),
            url: z.string(),
            consumer: z.object({ external_id: z.string() }).optional().describe('the endpoint’s customer; absent when it could not be read'),
            subject: z.string().describe('the client certificate’s subject, as the endpoint’s `tls.subject`'),
            not_after: z.number().int().describe('when the certificate expires (Unix milliseconds), as the endpoint’s `tls.not_after`'),
            fingerprint_sha256: z.string().describe('SHA-256 of the certificate, colon-separated hex, as the endpoint’s `tls.fingerprint_sha256`'),
            days_left: z.number().int().describe('days until `not_after` when the notice was made, rounded up (1: less than a day left)'),
          }),
        )
        .optional()
        .describe('alert.certificate_expiring: the client certificates (mutual TLS) expiring within 14 days, soonest first (at most 100)'),
    }),
  })
  .describe('A failure notice’s body: `{type, timestamp, data}`, the envelope a delivery has.');

export type AlertNotice = z.infer<typeof alertNoticeSchema>;

/** A notice's `timestamp`: ISO 8601 UTC with milliseconds, as in a delivery's body. */
export function noticeTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}
