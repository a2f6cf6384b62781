import { translator, type Locale } from './i18n.ts';

/**
 * The page cannot go on: `expired` — the API refused the link's token (it ran out while the
 * page was open); `not-here` — the server knew the link (it served this page) but this tab has
 * no token: a deep link opened in another browser or tab. One sentence and what to do.
 */
export function Gone({ locale, reason }: { locale: Locale; reason: 'expired' | 'not-here' }) {
  const { t } = translator(locale);
  if (reason === 'expired')
    return (
      <main class="gone">
        <h1>{t('sessionGone')}</h1>
      </main>
    );
  return (
    <main class="gone">
      <h1>{t('notInBrowserTitle')}</h1>
      <p>{t('notInBrowserBody')}</p>
    </main>
  );
}
