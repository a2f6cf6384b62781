import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The page's languages; the link's `locale` wins, else the browser's, else English. */
export type PageLocale = 'ja' | 'en';

/** The built front end's entry files (Vite's manifest), read once. */
export interface PortalAssets {
  script: string;
  styles: string[];
}

/** @returns the entry's files, or null when the front end is not built (./dev builds it). */
export function readAssets(distDir: string): PortalAssets | null {
  const manifest = join(distDir, '.vite', 'manifest.json');
  if (!existsSync(manifest)) return null;
  const entries = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, { file: string; css?: string[]; isEntry?: boolean }>;
  const entry = Object.values(entries).find((e) => e.isEntry);
  if (!entry) return null;
  return { script: `/${entry.file}`, styles: (entry.css ?? []).map((f) => `/${f}`) };
}

/**
 * The headers of every page answer: the link's frame origin is the only one that may embed
 * it ('none' without one), no script or style but our own files, no referrer leaves it (the
 * token was in the URL), nothing cached.
 */
export function pageHeaders(frameOrigin: string | null): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      `frame-ancestors ${frameOrigin ?? "'none'"}`,
    ].join('; '),
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
}

/** The language of a page: the link's, else the first of Accept-Language we have. */
export function pageLocale(linkLocale: PageLocale | null, acceptLanguage: string | undefined): PageLocale {
  if (linkLocale) return linkLocale;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.trim().split(';')[0]!.toLowerCase();
    if (tag.startsWith('ja')) return 'ja';
    if (tag.startsWith('en')) return 'en';
  }
  return 'en';
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The app's HTML: no inline script or style (CSP); what the script needs is in meta tags —
 * the session's reference (the token's hash: it opens nothing, and lets a reload find the
 * link's settings once the token has left the address bar), the language, the theme.
 */
export function shellHtml(options: { assets: PortalAssets; locale: PageLocale; session: string; theme: string | null }): string {
  const { assets, locale, session, theme } = options;
  const themeAttr = theme === 'dark' || theme === 'light' ? ` data-theme="${theme}"` : '';
  return `<!doctype html>
<html lang="${locale}"${themeAttr}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="wirehook-session" content="${escapeHtml(session)}">
<title>${locale === 'ja' ? 'Webhook 設定' : 'Webhook settings'}</title>
${assets.styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('\n')}
<script type="module" src="${escapeHtml(assets.script)}"></script>
</head>
<body><div id="app"></div></body>
</html>
`;
}

const GONE = {
  en: { title: 'This link has expired', body: 'Links to this page work for 15 minutes. Ask the company that sent it for a new one.' },
  ja: { title: 'このリンクは有効期限が切れています', body: 'このページへのリンクは 15 分間有効です。送信元の会社に新しいリンクを依頼してください。' },
  unknownEn: { title: 'This link is not valid', body: 'Check that the whole link was copied, or ask the company that sent it for a new one.' },
  unknownJa: { title: 'このリンクは無効です', body: 'リンク全体がコピーされているか確認するか、送信元の会社に新しいリンクを依頼してください。' },
} as const;

/** The page for an expired or unknown link: one sentence and what to do, in the page's language. */
export function goneHtml(locale: PageLocale, reason: 'expired' | 'unknown', stylesheet: string | undefined): string {
  const text = reason === 'expired' ? GONE[locale] : locale === 'ja' ? GONE.unknownJa : GONE.unknownEn;
  return `<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${text.title}</title>
${stylesheet ? `<link rel="stylesheet" href="${escapeHtml(stylesheet)}">` : ''}</head>
<body><main class="gone"><h1>${text.title}</h1><p>${text.body}</p></main></body>
</html>
`;
}
