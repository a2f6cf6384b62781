// A 422's message next to its field, in the page's language (PORTAL.md: "in the page's language,
// using the API's message"). The API words its refusals once (core's input schemas, the egress
// URL rules); each rule the endpoint form can meet is matched here and said again from the
// catalogue with the API's own values (the host, the address, the limit). A message no rule
// knows is shown in the API's words after the catalogue's lead, never dropped.
// services/portal/src/field-errors.test.ts holds every rule to a message the API really makes.

import type { MessageKey } from './catalogue.ts';
import type { Translator } from './i18n.ts';

interface Rule {
  /** The API's words, from the start of the message (after `field: ` where the API puts one). */
  pattern: RegExp;
  key: MessageKey;
  vars?: (m: RegExpExecArray, t: Translator) => Record<string, string>;
}

const RULES: readonly Rule[] = [
  { pattern: /^[a-z_.]*url host (\S+) is a raw IP address;/, key: 'refusedRawIp', vars: (m) => ({ host: m[1]! }) },
  { pattern: /^[a-z_.]*url host "([^"]+)" is an internal host name;/, key: 'refusedInternalHost', vars: (m) => ({ host: m[1]! }) },
  { pattern: /^[a-z_.]*url host "([^"]+)" resolves to ([^,]+),/, key: 'refusedPrivateAddress', vars: (m) => ({ host: m[1]!, address: m[2]! }) },
  { pattern: /^[a-z_.]*url host "([^"]+)" did not resolve within ([\d.]+) s$/, key: 'refusedSlowDns', vars: (m) => ({ host: m[1]!, seconds: m[2]! }) },
  { pattern: /^[a-z_.]*url host "([^"]+)" does not resolve/, key: 'refusedNoDns', vars: (m) => ({ host: m[1]! }) },
  { pattern: /^(?:url is|[a-z_.]+: is) not a valid URL$/, key: 'refusedNotUrl' },
  { pattern: /^[a-z_.]+: must use https$/, key: 'refusedHttps' },
  { pattern: /^[a-z_.]+: must use port 443 or 8443$/, key: 'refusedPort' },
  { pattern: /^[a-z_.]+: must not contain credentials$/, key: 'refusedCredentials' },
  { pattern: /^[a-z_.]+: must be at most ([\d,]+) characters$/, key: 'refusedTooLong', vars: (m) => ({ max: m[1]! }) },
  { pattern: /^[a-z_.]+: (?:must not be empty|is required)$/, key: 'refusedRequired' },
  {
    pattern: /^retry: count (\d+) with interval (\S+) spans more than 3 days/,
    key: 'refusedRetrySpan',
    // The interval as the form's list names it.
    vars: (m, t) => ({ count: m[1]!, interval: m[2] === 'progressive' ? t.t('intervalProgressive') : m[2]! }),
  },
  { pattern: /^auth\.client_secret: required when url moves to another origin \(\S+ → (\S+)\)/, key: 'refusedSecretAgain', vars: (m) => ({ origin: m[1]! }) },
];

/** `message` (a 422's, for one field) in `t`'s language: English as the API wrote it (an endpoint's `url` and an OAuth `token_url` alike). */
export function fieldErrorText(t: Translator, message: string): string {
  if (t.locale === 'en') return message;
  for (const rule of RULES) {
    const m = rule.pattern.exec(message);
    if (m !== null) return t.t(rule.key, rule.vars?.(m, t) ?? {});
  }
  return t.t('refusedOther', { message });
}

/**
 * What a panel shows under the field `prefix` names (`auth.token_url: `): in English the API's
 * words without the prefix (the field says which), in another language fieldErrorText's.
 */
export function fieldErrorUnder(t: Translator, message: string, prefix: RegExp): string {
  return t.locale === 'en' ? message.replace(prefix, '') : fieldErrorText(t, message);
}
