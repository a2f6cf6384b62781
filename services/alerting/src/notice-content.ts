import type { NoticeEndpoint } from '@wirehook/store';

// What a notice says: the JSON of webhook notices, and the same in words for chat and e-mail.

export interface NoticeContent {
  type: 'alert.delivery_failure' | 'alert.endpoint_disabled';
  /** Unix ms. */
  timestamp: number;
  data: {
    environments: string[];
    endpoints: {
      id: string;
      url: string;
      environment: string;
      consumer: { external_id: string };
      failing_since: number | null;
      last_error: string | null;
      last_status: number | null;
    }[];
    summary: string;
  };
}

export function noticeContent(type: NoticeContent['type'], endpoints: NoticeEndpoint[], now: number): NoticeContent {
  const environments = [...new Set(endpoints.map((e) => e.env))].sort();
  return {
    type,
    timestamp: now,
    data: {
      environments,
      endpoints: endpoints.map((e) => ({
        id: e.endpointId,
        url: e.url,
        environment: e.env,
        consumer: { external_id: e.consumerExternalId },
        failing_since: e.failingSince,
        last_error: e.lastError,
        last_status: e.lastStatus,
      })),
      summary: summary(type, endpoints),
    },
  };
}

function summary(type: NoticeContent['type'], endpoints: NoticeEndpoint[]): string {
  const lines = endpoints.map((e) => {
    const since = e.failingSince === null ? '' : `, failing since ${new Date(e.failingSince).toISOString()}`;
    const last = e.lastError ?? (e.lastStatus === null ? 'no response' : `HTTP ${e.lastStatus}`);
    return `- ${e.url} (${e.env}, customer ${e.consumerExternalId})${since}; last attempt: ${last}`;
  });
  const head =
    type === 'alert.endpoint_disabled'
      ? 'An endpoint was stopped automatically after 5 days of failed deliveries. Its customer must fix it and resume it:'
      : endpoints.length === 1
        ? 'Deliveries to an endpoint are failing:'
        : `Deliveries to ${endpoints.length} endpoints are failing:`;
  return [head, ...lines].join('\n');
}
