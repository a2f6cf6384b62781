import { endpointUrl } from '@wirehook/core';

/**
 * The endpoint URL rules (https, port 443 or 8443, no credentials), checked again at every
 * send: a URL stored before a rule existed, or written around the API, is never sent to.
 * The host's addresses are checked at connect time by the egress. @returns the attempt's
 * `blocked: …` error, or null when the URL may be sent to.
 */
export function urlRuleViolation(url: string): string | null {
  const checked = endpointUrl.safeParse(url);
  if (checked.success) return null;
  return `blocked: url ${checked.error.issues.map((issue) => issue.message).join('; ')}`;
}
