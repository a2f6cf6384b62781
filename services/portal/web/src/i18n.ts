// Every string of the page in both languages, one catalogue each (catalogue-en.ts,
// catalogue-ja.ts); plurals through Intl.PluralRules, dates, times and numbers through Intl, in the viewer's time zone.

import type { MessageKey, Plural } from './catalogue.ts';
import { en } from './catalogue-en.ts';
import { ja } from './catalogue-ja.ts';

export type { MessageKey } from './catalogue.ts';

export type Locale = 'en' | 'ja';

export interface Translator {
  locale: Locale;
  t(key: MessageKey, vars?: Record<string, string | number>): string;
  errorKind(kind: string): string;
  number(n: number): string;
  dateTime(ms: number): string;
  relative(ms: number, now?: number): string;
}

export function translator(locale: Locale): Translator {
  const catalogue = locale === 'ja' ? ja : en;
  const plurals = new Intl.PluralRules(locale);
  const numbers = new Intl.NumberFormat(locale);
  const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' });
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const fill = (text: string, vars: Record<string, string | number>) =>
    text.replace(/\{(\w+)\}/g, (_, name: string) => {
      const v = vars[name];
      return typeof v === 'number' ? numbers.format(v) : (v ?? `{${name}}`);
    });
  return {
    locale,
    t(key, vars = {}) {
      const entry = catalogue[key];
      if (typeof entry === 'string') return fill(entry, vars);
      const n = Number(vars['count'] ?? vars['total'] ?? 0);
      const form = plurals.select(n) as keyof Plural;
      return fill(entry[form] ?? entry.other, vars);
    },
    // A kind this page does not know yet is shown as the API wrote it.
    errorKind: (kind) => (catalogue.errors as Partial<Record<string, string>>)[kind] ?? kind,
    number: (n) => numbers.format(n),
    dateTime: (ms) => dates.format(ms),
    relative(ms, now = Date.now()) {
      const seconds = Math.round((ms - now) / 1000);
      const abs = Math.abs(seconds);
      if (abs < 60) return relative.format(seconds, 'second');
      if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
      if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour');
      return relative.format(Math.round(seconds / 86_400), 'day');
    },
  };
}

/** The page's language: the link's, else the browser's (ja or en), else English. */
export function chooseLocale(fromLink: Locale | null, fromDocument: string): Locale {
  if (fromLink) return fromLink;
  if (fromDocument === 'ja' || fromDocument === 'en') return fromDocument;
  return navigator.language.toLowerCase().startsWith('ja') ? 'ja' : 'en';
}
