import { translator, type Locale } from './i18n.ts';

/** The link has expired (or this tab never had it): one sentence and what to do. */
export function Gone({ locale }: { locale: Locale }) {
  const { t } = translator(locale);
  return (
    <main class="gone">
      <h1>{t('sessionGone')}</h1>
    </main>
  );
}
