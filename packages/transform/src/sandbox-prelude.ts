/** The file name QuickJS gives the endpoint's code in stack traces: positions are read from frames naming it. */
export const CODE_FILE_NAME = 'transformation.js';
export const PRELUDE_FILE_NAME = 'wirehook-prelude.js';
export const DESCRIBE_FILE_NAME = 'wirehook-describe.js';

/**
 * JavaScript evaluated in each fresh context before the endpoint's code: a function of `now`
 * that fixes the clock and returns `[run, stringify, String]` (the last two taken before the
 * code can replace them), held by the host only.
 *
 * - `Date`: `Date.now()`, `new Date()` and `Date()` say `now`; with arguments it is the real
 *   Date (QuickJS's zone is UTC). `Math.random` is QuickJS's own, seeded per context.
 * - `console`: log, info, warn, error and debug do nothing (code written with them still runs).
 * - `run(inputJson)` parses the webhook, calls the code's `handler` and answers JSON text the
 *   host checks (transform-result.ts): `{"handler":kind}` (none defined), `{"result":kind}`
 *   (not an object, or "promise"), `{"cancel":true}`, or `{"cancelKind":…}` followed by
 *   payload, headers and url, each as `"<name>":json,"<name>Kind":kind` or
 *   `"<name>Error":text` when JSON.stringify threw. Each is read from the result once (a
 *   getter could answer differently twice). What the handler throws is not caught.
 *
 * Kept short, with the checks and messages on the host: QuickJS compiles ~100 µs a kilobyte in
 * its WebAssembly build, and this is compiled on every run.
 */
export const PRELUDE_SOURCE = `(function (fixedNow) {
  'use strict';
  const RealDate = Date;
  const construct = Reflect.construct;
  const defineProperty = Object.defineProperty;
  const isArray = Array.isArray;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const toText = String;
  const OutOfMemory = InternalError;
  // Local time is UTC whatever the host's zone (QuickJS asks the host's): a dispatcher in Tokyo
  // and a gateway in Berlin give the code the same month at a month's end.
  const proto = RealDate.prototype;
  for (const name of ['FullYear', 'Month', 'Date', 'Day', 'Hours', 'Minutes', 'Seconds', 'Milliseconds']) {
    defineProperty(proto, 'get' + name, { value: proto['getUTC' + name], writable: true, configurable: true });
    if (name !== 'Day') defineProperty(proto, 'set' + name, { value: proto['setUTC' + name], writable: true, configurable: true });
  }
  defineProperty(proto, 'getTimezoneOffset', { value: () => 0, writable: true, configurable: true });
  // QuickJS's own format, in UTC: "Mon Nov 30 2026 23:59:59 GMT+0000".
  const utcText = function () {
    const text = proto.toUTCString.call(this);
    const parts = text.replace(',', '').split(' ');
    return parts.length === 6 ? parts[0] + ' ' + parts[2] + ' ' + parts[1] + ' ' + parts[3] + ' ' + parts[4] + ' GMT+0000' : text;
  };
  for (const name of ['toString', 'toLocaleString']) defineProperty(proto, name, { value: utcText, writable: true, configurable: true });
  for (const name of ['toDateString', 'toLocaleDateString']) {
    defineProperty(proto, name, { value: function () { return proto.toISOString.call(this).slice(0, 10); }, writable: true, configurable: true });
  }
  for (const name of ['toTimeString', 'toLocaleTimeString']) {
    defineProperty(proto, name, { value: function () { return proto.toISOString.call(this).slice(11, 23) + 'Z'; }, writable: true, configurable: true });
  }
  const FixedDate = {
    Date: function (...args) {
      if (new.target === undefined) return utcText.call(new RealDate(fixedNow));
      // Components (year, month, …) are read as UTC, as every local time is here.
      const at = args.length === 0 ? [fixedNow] : args.length >= 2 ? [RealDate.UTC(...args)] : args;
      return construct(RealDate, at, new.target);
    },
  }.Date;
  defineProperty(FixedDate, 'length', { value: 7 });
  FixedDate.prototype = RealDate.prototype;
  FixedDate.now = () => fixedNow;
  FixedDate.parse = RealDate.parse;
  FixedDate.UTC = RealDate.UTC;
  defineProperty(RealDate.prototype, 'constructor', { value: FixedDate, writable: true, configurable: true });
  defineProperty(globalThis, 'Date', { value: FixedDate, writable: true, configurable: true });
  const quiet = () => {};
  const console = { log: quiet, info: quiet, warn: quiet, error: quiet, debug: quiet };
  defineProperty(globalThis, 'console', { value: console, writable: true, configurable: true });

  const kind = (value) => (value === null ? 'null' : isArray(value) ? 'array' : typeof value);
  function field(name, value) {
    let text;
    try {
      text = stringify(value);
    } catch (thrown) {
      if (thrown === null || (thrown instanceof OutOfMemory && thrown.message === 'out of memory')) throw thrown;
      let why = 'an error that cannot be read';
      try {
        why = thrown !== null && typeof thrown === 'object' ? toText(thrown.name) + ': ' + toText(thrown.message) : toText(thrown);
      } catch (_) {}
      return ',"' + name + 'Error":' + stringify(why);
    }
    return ',"' + name + '":' + (text === undefined ? 'null' : text) + ',"' + name + 'Kind":"' + kind(value) + '"';
  }
  function run(inputJson) {
    if (typeof handler !== 'function') return stringify({ handler: typeof handler === 'undefined' ? 'undefined' : kind(handler) });
    const result = handler(parse(inputJson));
    if (kind(result) !== 'object') return stringify({ result: kind(result) });
    if (typeof result.then === 'function') return '{"result":"promise"}';
    const cancel = result.cancel;
    if (cancel === true) return '{"cancel":true}';
    return '{"cancelKind":"' + kind(cancel) + '"' + field('payload', result.payload) + field('headers', result.headers) + field('url', result.url) + '}';
  }
  return [run, stringify, toText];
})`;

/**
 * Evaluated only when a run failed: a function of the thrown value (and the prelude's
 * `stringify` and `String`) answering `{"name","message","stack","isNull"}` as JSON text,
 * each read guarded (a thrown object's getters are the code's own).
 */
export const DESCRIBE_SOURCE = `(function (thrown, stringify, toText) {
  'use strict';
  let name = null;
  let message = null;
  let stack = null;
  try {
    if (thrown !== null && (typeof thrown === 'object' || typeof thrown === 'function')) {
      const n = thrown.name;
      const m = thrown.message;
      const s = thrown.stack;
      if (typeof n === 'string') name = n;
      if (m !== undefined) message = toText(m);
      if (typeof s === 'string') stack = s;
      if (name === null && message === null) message = 'threw ' + (stringify(thrown) ?? toText(thrown));
    } else {
      message = 'threw ' + (typeof thrown === 'string' ? stringify(thrown) : toText(thrown));
    }
  } catch (_) {
    message = 'threw a value that cannot be read';
  }
  return stringify({ name, message, stack, isNull: thrown === null });
})`;
