// explain_delivery: an attempt's outcome in the words a person debugging a receiver needs.

interface AttemptJson {
  at: number;
  response_status: number | null;
  response_head: string | null;
  duration_ms: number;
  error: string | null;
  via: string;
  source_ip: string | null;
}
interface DeliveryJson {
  id: string;
  url: string;
  status: string;
  next_attempt_at: number | null;
  attempts: AttemptJson[];
}
interface MessageJson {
  id: string;
  event_type: string;
  status: string;
  deliveries: DeliveryJson[];
}

const ADVICE: Record<string, string> = {
  dns: 'The host name does not resolve. Check the URL for typos and that its DNS record exists and is public.',
  tls: 'The TLS handshake failed: the certificate is expired, self-signed, for another name, or the chain is incomplete. Test the URL with `curl -v`.',
  timeout: 'The receiver did not answer within 15 seconds. Answer 2xx at once and do the work afterwards (a queue).',
  connection:
    'The connection was refused or reset: nothing listens on that host and port, or a firewall drops it. If the receiver allowlists source addresses, use fixed_ip and allow the relay’s addresses.',
  blocked: 'The URL points at a private or internal address; webhooks go only to public addresses.',
  redirect: 'The receiver answered with a redirect, which is not followed: point the endpoint at the final URL.',
  relay: 'The fixed-IP relay could not send it: this is on Wirehook’s side, not the receiver’s; it is retried and does not count toward the automatic stop.',
  internal: 'An error inside Wirehook; it is retried.',
};

function statusAdvice(status: number): string {
  if (status === 401 || status === 403)
    return 'The receiver refused the request: check that it verifies the webhook-signature with the endpoint’s current secret (Standard Webhooks; after a rotation both secrets sign for 24 hours) and that the timestamp is within 5 minutes of its clock.';
  if (status === 404 || status === 405) return 'The receiver has no such route for POST: check the URL’s path.';
  if (status === 413) return 'The payload is too large for the receiver.';
  if (status === 429) return 'The receiver rate-limited the delivery; retries follow the endpoint’s policy.';
  if (status >= 500) return 'The receiver failed while handling it (a 5xx): see its logs for this webhook-id.';
  return `The receiver answered ${status}; only 2xx counts as delivered.`;
}

export function explainDelivery(message: MessageJson, deliveryId?: string): string {
  const delivery = deliveryId
    ? message.deliveries.find((d) => d.id === deliveryId)
    : (message.deliveries.find((d) => d.status !== 'success') ?? message.deliveries[0]);
  if (!delivery)
    return deliveryId
      ? `Message ${message.id} has no delivery ${deliveryId}.`
      : `Message ${message.id} went to no endpoint (none of its consumer’s endpoints took ${message.event_type}).`;
  const last = delivery.attempts.at(-1);
  const lines = [
    `Delivery ${delivery.id} of message ${message.id} (${message.event_type}) to ${delivery.url}: ${delivery.status}, ${delivery.attempts.length} attempt(s).`,
  ];
  if (!last) {
    lines.push('No attempt yet: it is waiting to be sent (or held while the endpoint is paused).');
    return lines.join('\n');
  }
  const when = new Date(last.at).toISOString();
  const from = last.source_ip ? ` from ${last.source_ip} (${last.via})` : '';
  if (last.error === null && last.response_status !== null) {
    lines.push(`The last attempt (${when}${from}) was answered ${last.response_status} in ${last.duration_ms} ms: delivered.`);
  } else {
    const kind = last.error?.split(':')[0] ?? 'internal';
    lines.push(`The last attempt (${when}${from}) failed after ${last.duration_ms} ms: ${last.error ?? 'no error recorded'}.`);
    lines.push(kind === 'http_status' && last.response_status !== null ? statusAdvice(last.response_status) : (ADVICE[kind] ?? ''));
    if (last.response_head) lines.push(`The receiver answered: ${last.response_head.slice(0, 300)}`);
  }
  if (delivery.next_attempt_at !== null) lines.push(`Next attempt: ${new Date(delivery.next_attempt_at).toISOString()}.`);
  else if (delivery.status === 'failed') lines.push('No attempt is left: fix the receiver, then use retry_delivery (or recover_endpoint for many).');
  return lines.filter(Boolean).join('\n');
}
