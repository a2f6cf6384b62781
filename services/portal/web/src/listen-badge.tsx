import type { Translator } from './i18n.ts';

/**
 * Marks a `wirehook listen` endpoint: a pill with its word, and what it is on hover and focus
 * (the title) and for screen readers (the same words, visually hidden).
 */
export function ListenBadge({ t }: { t: Translator }) {
  const title = t.t('listenTitle');
  return (
    <span class="pill pill-listen" title={title} tabIndex={0}>
      {t.t('listenBadge')}
      <span class="sr-only">: {title}</span>
    </span>
  );
}
