// The endpoint form's 422s in Japanese: each rule of the page's matches a message the API really
// makes (core's input schemas, the egress URL rules), so an API that changes its words fails here
// rather than leave a Japanese page with the English fallback.
import { createEndpointBody, InvalidError, parseInput, patchEndpointBody } from '@wirehook/core';
import { AddressPolicy, checkEndpointUrl } from '@wirehook/egress';
import { describe, expect, it } from 'vitest';
import { fieldErrorText, fieldErrorUnder } from '../web/src/field-errors.ts';
import { translator } from '../web/src/i18n.ts';

const ja = translator('ja');
const en = translator('en');

/** The API's message for a PATCH body. */
function refusedBody(body: unknown): string {
  try {
    parseInput(patchEndpointBody, body, 'request body');
  } catch (err) {
    if (err instanceof InvalidError) return err.message;
    throw err;
  }
  throw new Error(`taken: ${JSON.stringify(body)}`);
}

/** The API's message for a URL's host, resolved from `table`. */
async function refusedHost(url: string, table: Record<string, string[]>, timeoutMs?: number): Promise<string> {
  const lookup = async (host: string) => {
    const addresses = table[host];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    if (addresses.length === 0) return new Promise<never>(() => {});
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const refused = await checkEndpointUrl(url, { policy: new AddressPolicy(), lookup, timeoutMs }).then(
    () => undefined,
    (err: unknown) => (err instanceof InvalidError ? err.message : undefined),
  );
  if (refused === undefined) throw new Error(`taken: ${url}`);
  return refused;
}

describe('the endpoint form’s field errors in the page’s language', () => {
  it('every rule of the form is said in Japanese with the API’s own values, never the fallback', async () => {
    const cases: [string, string][] = [
      [refusedBody({ url: 'http://hooks.example.com/in' }), 'URL は https でなければなりません。'],
      [refusedBody({ url: 'https://hooks.example.com:9443/in' }), 'URL のポートは 443 または 8443 でなければなりません。'],
      [refusedBody({ url: 'https://user:pw@hooks.example.com/in' }), 'URL にユーザー名やパスワードを含めることはできません。'],
      [refusedBody({ url: 'not a url' }), '正しい URL ではありません。'],
      [refusedBody({ url: `https://hooks.example.com/${'a'.repeat(2_000)}` }), '2000 文字以内で入力してください。'],
      [refusedBody({ description: 'd'.repeat(201) }), '200 文字以内で入力してください。'],
      [refusedBody({ url: '' }), '入力してください。'],
      [
        refusedBody({ retry: { count: 12, interval: 'progressive' } }),
        `${ja.t('intervalProgressive')} 間隔で 12 回の再試行は 3 日を超えます。回数を減らすか、間隔を短くしてください。`,
      ],
      [await refusedHost('https://203.0.113.9/in', {}), 'ホスト 203.0.113.9 は IP アドレスです。公開されたホスト名を使ってください。'],
      [await refusedHost('https://db.internal/in', {}), 'ホスト db.internal は内部ホスト名です。公開されたホスト名を使ってください。'],
      [
        await refusedHost('https://private.example/in', { 'private.example': ['10.0.0.5'] }),
        'ホスト private.example は 10.0.0.5 に解決されます。公開アドレスではありません。',
      ],
      [await refusedHost('https://nowhere.example/in', {}), 'ホスト nowhere.example は名前解決できません。'],
      [await refusedHost('https://slow.example/in', { 'slow.example': [] }, 50), 'ホスト slow.example は 0.05 秒以内に名前解決できませんでした。'],
    ];
    for (const [message, japanese] of cases) expect(fieldErrorText(ja, message), message).toBe(japanese);
  });

  it('a message no rule knows keeps the API’s words after the Japanese lead; English is the API’s words as they are', () => {
    const other = refusedBody({ status: 'gone' });
    expect(other).toBe('status: must be active or paused');
    expect(fieldErrorText(ja, other)).toBe('受け付けられませんでした: status: must be active or paused');
    expect(fieldErrorText(en, 'url: must use https')).toBe('url: must use https');
    // The create body words its rules the same way (one schema of the URL).
    expect(() => parseInput(createEndpointBody, { consumer_id: 'con_1', url: 'http://x.example' }, 'request body')).toThrow('url: must use https');
  });

  it('an OAuth token URL’s host is said as an endpoint URL’s (the API names auth.token_url in place of url); in English a panel drops the prefix', async () => {
    // What the API's checkUrl makes of the egress's message for another field.
    const message = `auth.token_url${(await refusedHost('https://private.example/token', { 'private.example': ['10.0.0.5'] })).slice(3)}`;
    expect(message).toMatch(/^auth\.token_url host "private\.example" resolves to 10\.0\.0\.5/);
    expect(fieldErrorText(ja, message)).toBe('ホスト private.example は 10.0.0.5 に解決されます。公開アドレスではありません。');
    expect(fieldErrorUnder(en, 'auth.token_url: must use https', /^auth\.[a-z_]+:\s*/)).toBe('must use https');
    expect(fieldErrorUnder(ja, 'auth.token_url: must use https', /^auth\.[a-z_]+:\s*/)).toBe('URL は https でなければなりません。');
  });

  it('the OAuth secret asked again names the new origin', () => {
    const message =
      'auth.client_secret: required when url moves to another origin (https://a.example → https://b.example): ' +
      "the stored secret's tokens go only to the origin it was given for; give auth again with its client_secret, or null";
    expect(fieldErrorText(ja, message)).toBe('https://b.example にトークンを送るには、OAuth クライアントシークレットをもう一度入力してください。');
  });
});
