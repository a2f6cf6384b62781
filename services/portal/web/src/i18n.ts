// Every string of the page in both languages, one catalogue each; plurals through
// Intl.PluralRules, dates, times and numbers through Intl, in the viewer's time zone.

export type Locale = 'en' | 'ja';

type Plural = { one?: string; other: string };
type Entry = string | Plural;

/** Every key of the page; each language's catalogue has them all (the compiler checks). */
type Catalogue = Record<MessageKey, Entry> & { errors: Record<string, string> };

const en: Catalogue = {
  title: 'Webhooks',
  subtitle: 'Endpoints that receive events for {name}',
  environmentTest: 'Test environment',
  loading: 'Loading…',
  saving: 'Saving…',
  retry: 'Try again',
  back: 'Back to endpoints',
  tabEndpoints: 'Endpoints',
  tabDeliveries: 'Deliveries',
  endpointsEmptyTitle: 'No endpoints yet',
  endpointsEmptyBody: 'An endpoint is an HTTPS URL of yours that receives a signed POST request for each event.',
  addEndpoint: 'Add endpoint',
  url: 'URL',
  urlHelp: 'HTTPS on port 443 or 8443, reachable from the internet.',
  description: 'Description',
  eventTypes: 'Event types',
  eventTypesAll: 'All event types',
  eventTypesChoose: 'Only these event types',
  eventTypesSearch: 'Search event types',
  eventTypesNone: 'The sender has not registered event types yet: this endpoint receives all of them.',
  retryPolicy: 'Retries',
  retryCount: 'Re-sends after a failure',
  retryInterval: 'Interval',
  intervalProgressive: 'Progressive (5 s, 5 min, 30 min, 2 h, 5 h, 10 h…)',
  create: 'Create endpoint',
  save: 'Save changes',
  settings: 'Settings',
  saved: 'Saved.',
  cancel: 'Cancel',
  status: 'Status',
  statusActive: 'Active',
  statusPaused: 'Paused',
  statusDisabled: 'Disabled',
  disabledBecause: 'Stopped automatically: deliveries failed for 5 days. Fix the endpoint, then resume it.',
  failingSince: 'Failing since {time}',
  neverAttempted: 'No attempts yet',
  pause: 'Pause',
  resume: 'Resume',
  pausedHelp: 'While paused, events are kept and sent when you resume (this month’s and last month’s).',
  delete: 'Delete endpoint',
  deleteConfirm: 'Delete the endpoint {url}? Its undelivered events will not be sent.',
  secret: 'Signing secret',
  secretHelp: 'Verify each request’s webhook-signature header with this secret (Standard Webhooks).',
  reveal: 'Reveal',
  hide: 'Hide',
  copy: 'Copy',
  copied: 'Copied',
  rotate: 'Rotate secret',
  rotateConfirm: 'Make a new secret? For 24 hours requests carry signatures with both the old and the new secret, so you can switch without missing any.',
  rotated: 'New secret made. The old one stays valid for 24 hours.',
  recovery: 'Re-send failed deliveries',
  recoveryHelp: 'Re-sends every delivery to this endpoint that failed since the time you choose, 50 every 10 seconds.',
  recoverySince: 'Failed since',
  recoveryStart: 'Start re-sending',
  recoveryRunning: { one: 'Re-sending: {queued} of {total} delivery queued', other: 'Re-sending: {queued} of {total} deliveries queued' },
  recoveryDone: { one: 'Done: {total} delivery re-sent', other: 'Done: {total} deliveries re-sent' },
  recoveryStopped: 'Stopped at {queued} of {total} (the endpoint was paused or deleted)',
  recentAttempts: 'Recent attempts',
  trial: 'Send a test message',
  trialHelp: 'Sends one message to this endpoint only, signed like every other. Test messages are limited to 1,000 a day.',
  trialEventType: 'Event type',
  trialPayload: 'Payload (JSON)',
  trialSend: 'Send test message',
  trialSent: 'Sent; waiting for the result…',
  trialResult: 'Result: {result}',
  trialBadJson: 'The payload is not valid JSON.',
  deliveriesEmpty: 'No deliveries match.',
  filterStatus: 'Status',
  filterEventType: 'Event type',
  any: 'Any',
  statusPending: 'Pending',
  statusRetrying: 'Retrying',
  statusSuccess: 'Delivered',
  statusFailed: 'Failed',
  statusCount: '{status} {n}',
  noEndpointMatched: 'No endpoint matched',
  loadMore: 'Load more',
  attempts: { one: '{count} attempt', other: '{count} attempts' },
  showAttempts: 'Show attempts',
  hideAttempts: 'Hide attempts',
  resend: 'Re-send',
  resent: 'Queued to send again.',
  attemptAt: 'Time',
  attemptResult: 'Result',
  attemptDuration: 'Duration',
  attemptVia: 'Sent from',
  attemptResponse: 'Response',
  viaRelay: 'fixed IP {ip}',
  viaDirect: '{ip}',
  ms: '{n} ms',
  httpStatus: 'HTTP {status}',
  noResponse: 'No response',
  sessionGone: 'This link has expired. Ask the company that sent it for a new one.',
  errorGeneric: 'Something went wrong: {message}',
  errors: {
    timeout: 'Your endpoint did not answer in time',
    connection: 'Could not connect to your endpoint',
    tls: 'The TLS (HTTPS) handshake failed',
    dns: 'The host name does not resolve',
    blocked: 'The address is not allowed (private or internal)',
    http_status: 'Your endpoint answered with an error status',
    redirect: 'Your endpoint answered with a redirect, which is not followed',
    relay: 'Our fixed-IP relay could not send it (not your endpoint’s fault)',
    internal: 'An error on our side',
  },
};

const ja: Catalogue = {
  title: 'Webhook',
  subtitle: '{name} のイベントを受け取るエンドポイント',
  environmentTest: 'テスト環境',
  loading: '読み込み中…',
  saving: '保存中…',
  retry: '再試行',
  back: 'エンドポイント一覧へ戻る',
  tabEndpoints: 'エンドポイント',
  tabDeliveries: '配信履歴',
  endpointsEmptyTitle: 'エンドポイントはまだありません',
  endpointsEmptyBody: 'エンドポイントは、イベントごとに署名付きの POST リクエストを受け取る HTTPS の URL です。',
  addEndpoint: 'エンドポイントを追加',
  url: 'URL',
  urlHelp: 'ポート 443 または 8443 の HTTPS で、インターネットから到達できること。',
  description: '説明',
  eventTypes: 'イベントタイプ',
  eventTypesAll: 'すべてのイベントタイプ',
  eventTypesChoose: '次のイベントタイプのみ',
  eventTypesSearch: 'イベントタイプを検索',
  eventTypesNone: '送信元はまだイベントタイプを登録していません。このエンドポイントはすべてを受け取ります。',
  retryPolicy: '再送',
  retryCount: '失敗後の再送回数',
  retryInterval: '間隔',
  intervalProgressive: '段階的（5 秒、5 分、30 分、2 時間、5 時間、10 時間…）',
  create: 'エンドポイントを作成',
  save: '変更を保存',
  settings: '設定',
  saved: '保存しました。',
  cancel: 'キャンセル',
  status: '状態',
  statusActive: '有効',
  statusPaused: '一時停止中',
  statusDisabled: '停止',
  disabledBecause: '5 日間配信に失敗したため自動停止しました。エンドポイントを修正してから再開してください。',
  failingSince: '{time}から失敗中',
  neverAttempted: 'まだ試行はありません',
  pause: '一時停止',
  resume: '再開',
  pausedHelp: '一時停止中のイベントは保持され、再開時に送信されます（今月分と先月分）。',
  delete: 'エンドポイントを削除',
  deleteConfirm: 'エンドポイント {url} を削除しますか？ 未配信のイベントは送信されません。',
  secret: '署名シークレット',
  secretHelp: '各リクエストの webhook-signature ヘッダーをこのシークレットで検証してください（Standard Webhooks）。',
  reveal: '表示',
  hide: '隠す',
  copy: 'コピー',
  copied: 'コピーしました',
  rotate: 'シークレットを更新',
  rotateConfirm: '新しいシークレットを作成しますか？ 24 時間は新旧両方のシークレットによる署名が付くため、取りこぼしなく切り替えられます。',
  rotated: '新しいシークレットを作成しました。古いシークレットは 24 時間有効です。',
  recovery: '失敗した配信の再送',
  recoveryHelp: '指定した時刻以降にこのエンドポイントへの配信で失敗したものを、10 秒ごとに 50 件ずつ再送します。',
  recoverySince: '失敗の開始時刻',
  recoveryStart: '再送を開始',
  recoveryRunning: { other: '再送中：{total} 件中 {queued} 件をキューに追加' },
  recoveryDone: { other: '完了：{total} 件を再送しました' },
  recoveryStopped: '{total} 件中 {queued} 件で停止しました（エンドポイントが一時停止または削除されました）',
  recentAttempts: '最近の試行',
  trial: 'テストメッセージを送信',
  trialHelp: 'このエンドポイントだけに、通常と同じく署名したメッセージを 1 件送ります。テストメッセージは 1 日 1,000 件までです。',
  trialEventType: 'イベントタイプ',
  trialPayload: 'ペイロード（JSON）',
  trialSend: 'テストメッセージを送信',
  trialSent: '送信しました。結果を待っています…',
  trialResult: '結果：{result}',
  trialBadJson: 'ペイロードが正しい JSON ではありません。',
  deliveriesEmpty: '該当する配信はありません。',
  filterStatus: '状態',
  filterEventType: 'イベントタイプ',
  any: 'すべて',
  statusPending: '保留中',
  statusRetrying: '再試行中',
  statusSuccess: '配信済み',
  statusFailed: '失敗',
  statusCount: '{status} {n}',
  noEndpointMatched: '該当するエンドポイントなし',
  loadMore: 'さらに読み込む',
  attempts: { other: '試行 {count} 回' },
  showAttempts: '試行を表示',
  hideAttempts: '試行を隠す',
  resend: '再送',
  resent: '再送をキューに追加しました。',
  attemptAt: '時刻',
  attemptResult: '結果',
  attemptDuration: '所要時間',
  attemptVia: '送信元',
  attemptResponse: 'レスポンス',
  viaRelay: '固定 IP {ip}',
  viaDirect: '{ip}',
  ms: '{n} ミリ秒',
  httpStatus: 'HTTP {status}',
  noResponse: '応答なし',
  sessionGone: 'このリンクは有効期限が切れています。送信元の会社に新しいリンクを依頼してください。',
  errorGeneric: 'エラーが発生しました：{message}',
  errors: {
    timeout: 'エンドポイントが時間内に応答しませんでした',
    connection: 'エンドポイントに接続できませんでした',
    tls: 'TLS（HTTPS）ハンドシェイクに失敗しました',
    dns: 'ホスト名を解決できません',
    blocked: 'このアドレスは許可されていません（プライベートまたは内部）',
    http_status: 'エンドポイントがエラーステータスを返しました',
    redirect: 'エンドポイントがリダイレクトを返しました（追跡しません）',
    relay: '固定 IP リレーが送信できませんでした（エンドポイントの問題ではありません）',
    internal: '当社側のエラー',
  },
};

export type MessageKey =
  | 'title'
  | 'subtitle'
  | 'environmentTest'
  | 'loading'
  | 'saving'
  | 'retry'
  | 'back'
  | 'tabEndpoints'
  | 'tabDeliveries'
  | 'endpointsEmptyTitle'
  | 'endpointsEmptyBody'
  | 'addEndpoint'
  | 'url'
  | 'urlHelp'
  | 'description'
  | 'eventTypes'
  | 'eventTypesAll'
  | 'eventTypesChoose'
  | 'eventTypesSearch'
  | 'eventTypesNone'
  | 'retryPolicy'
  | 'retryCount'
  | 'retryInterval'
  | 'intervalProgressive'
  | 'create'
  | 'save'
  | 'settings'
  | 'saved'
  | 'cancel'
  | 'status'
  | 'statusActive'
  | 'statusPaused'
  | 'statusDisabled'
  | 'disabledBecause'
  | 'failingSince'
  | 'neverAttempted'
  | 'pause'
  | 'resume'
  | 'pausedHelp'
  | 'delete'
  | 'deleteConfirm'
  | 'secret'
  | 'secretHelp'
  | 'reveal'
  | 'hide'
  | 'copy'
  | 'copied'
  | 'rotate'
  | 'rotateConfirm'
  | 'rotated'
  | 'recovery'
  | 'recoveryHelp'
  | 'recoverySince'
  | 'recoveryStart'
  | 'recoveryRunning'
  | 'recoveryDone'
  | 'recoveryStopped'
  | 'recentAttempts'
  | 'trial'
  | 'trialHelp'
  | 'trialEventType'
  | 'trialPayload'
  | 'trialSend'
  | 'trialSent'
  | 'trialResult'
  | 'trialBadJson'
  | 'deliveriesEmpty'
  | 'filterStatus'
  | 'filterEventType'
  | 'any'
  | 'statusPending'
  | 'statusRetrying'
  | 'statusSuccess'
  | 'statusFailed'
  | 'statusCount'
  | 'noEndpointMatched'
  | 'loadMore'
  | 'attempts'
  | 'showAttempts'
  | 'hideAttempts'
  | 'resend'
  | 'resent'
  | 'attemptAt'
  | 'attemptResult'
  | 'attemptDuration'
  | 'attemptVia'
  | 'attemptResponse'
  | 'viaRelay'
  | 'viaDirect'
  | 'ms'
  | 'httpStatus'
  | 'noResponse'
  | 'sessionGone'
  | 'errorGeneric';

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
    errorKind: (kind) => catalogue.errors[kind] ?? kind,
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
