import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { goneHtml, pageHeaders, pageLocale, readAssets, shellHtml } from './page.ts';
import { writeBuiltFrontEnd } from './testing/portal-scene.ts';

describe('pageLocale', () => {
  it.each([
    ['ja', undefined, 'ja'],
    ['en', 'ja-JP,ja;q=0.9', 'en'],
    [null, 'ja-JP,ja;q=0.9,en;q=0.8', 'ja'],
    [null, 'en-GB,en;q=0.9,ja;q=0.8', 'en'],
    [null, 'fr-FR, de;q=0.8, JA;q=0.5', 'ja'],
    [null, 'fr-FR,de', 'en'],
    [null, '', 'en'],
    [null, undefined, 'en'],
  ] as const)("link %s, Accept-Language %s: %s (the link's wins, then the first we have, else English)", (link, accept, locale) => {
    expect(pageLocale(link, accept)).toBe(locale);
  });
});

describe('pageHeaders', () => {
  it("lets only the link's frame origin embed the page; none without one", () => {
    expect(pageHeaders('https://dash.example.com')['content-security-policy']).toContain('frame-ancestors https://dash.example.com');
    expect(pageHeaders(null)['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('allows only our own scripts and styles, sends no referrer, caches nothing', () => {
    const headers = pageHeaders(null);
    expect(headers['content-security-policy']).toContain("default-src 'none'");
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(headers).toMatchObject({ 'referrer-policy': 'no-referrer', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  });
});

describe('shellHtml', () => {
  const assets = { script: '/assets/main-abc.js', styles: ['/assets/main-abc.css'] };

  it('names the session, language and theme in the markup, with no inline script or style', () => {
    const html = shellHtml({ assets, locale: 'ja', session: 'a'.repeat(64), theme: 'dark' });
    expect(html).toContain('<html lang="ja" data-theme="dark">');
    expect(html).toContain(`<meta name="wirehook-session" content="${'a'.repeat(64)}">`);
    expect(html).toContain('<title>Webhook 設定</title>');
    expect(html).toContain('<script type="module" src="/assets/main-abc.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="/assets/main-abc.css">');
    expect(html).not.toMatch(/<script>|<style|style="/);
  });

  it('takes only dark or light as the theme, and escapes what it writes into attributes', () => {
    expect(shellHtml({ assets, locale: 'en', session: 's', theme: 'neon' })).toContain('<html lang="en">');
    const html = shellHtml({ assets, locale: 'en', session: '"><script>alert(1)</script>', theme: '" onload="x' });
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('content="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;"');
    expect(html).toContain('<title>Webhook settings</title>');
  });
});

describe('goneHtml', () => {
  it('says an expired link has expired, and an unknown one is not valid, in the page language', () => {
    expect(goneHtml('en', 'expired', undefined)).toContain('<h1>This link has expired</h1>');
    expect(goneHtml('ja', 'expired', undefined)).toContain('<h1>このリンクは有効期限が切れています</h1>');
    expect(goneHtml('en', 'unknown', undefined)).toContain('<h1>This link is not valid</h1>');
    expect(goneHtml('ja', 'unknown', undefined)).toContain('<html lang="ja">');
  });

  it('links the stylesheet when there is one', () => {
    expect(goneHtml('en', 'expired', '/assets/main-abc.css')).toContain('<link rel="stylesheet" href="/assets/main-abc.css">');
    expect(goneHtml('en', 'expired', undefined)).not.toContain('<link');
  });
});

describe('readAssets', () => {
  it("reads the entry's script and styles from Vite's manifest; null while not built", () => {
    const dir = mkdtempSync(join(tmpdir(), 'wirehook-portal-dist-'));
    try {
      expect(readAssets(dir)).toBeNull();
      writeBuiltFrontEnd(dir);
      expect(readAssets(dir)).toEqual({ script: '/assets/main-abc.js', styles: ['/assets/main-abc.css'] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
