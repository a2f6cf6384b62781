// A script's first lines that wrap ICU's entry points (the toLocale… methods, localeCompare,
// Intl's formatters) to record who calls them: test/e2e/start-without-icu.test.ts and
// thread-imports.test.ts run them where Wirehook's modules load. Each wrapper is called once as
// it is made, so a record that stays empty is one that was seen to work.

/**
 * The lines, plain JavaScript for a script or a preload. `sink` is a function expression given
 * each call as one line ("Number#toLocaleString from at file:…"); the lines define
 * `icuSelfCheck`: 'recorded' when every wrapper recorded its own check (not given to `sink`).
 */
export function icuRecorder(sink: string): string {
  return `
const icuSink = ${sink};
const icuChecked = new Set();
let icuChecking = false;
const recordIcu = (what) => {
  if (icuChecking) icuChecked.add(what);
  else icuSink(what + ' from ' + (new Error().stack.split('\\n')[3] ?? '?').trim());
};
// Each: a method that reaches ICU, and a call of it that checks its wrapper.
const icuChecks = [];
for (const [label, proto, name, check] of [
  ['Number', Number.prototype, 'toLocaleString', () => (1).toLocaleString()],
  ['BigInt', BigInt.prototype, 'toLocaleString', () => (1n).toLocaleString()],
  ['Date', Date.prototype, 'toLocaleString', () => new Date(0).toLocaleString()],
  ['Date', Date.prototype, 'toLocaleDateString', () => new Date(0).toLocaleDateString()],
  ['Date', Date.prototype, 'toLocaleTimeString', () => new Date(0).toLocaleTimeString()],
  ['String', String.prototype, 'localeCompare', () => 'a'.localeCompare('b')],
  ['String', String.prototype, 'toLocaleUpperCase', () => 'a'.toLocaleUpperCase()],
  ['String', String.prototype, 'toLocaleLowerCase', () => 'a'.toLocaleLowerCase()],
  ['Array', Array.prototype, 'toLocaleString', () => [].toLocaleString()],
]) {
  const original = proto[name];
  const what = label + '#' + name;
  proto[name] = function (...args) { recordIcu(what); return original.apply(this, args); };
  icuChecks.push(check);
}
for (const name of ['NumberFormat', 'DateTimeFormat', 'PluralRules', 'Collator', 'RelativeTimeFormat', 'ListFormat', 'Segmenter', 'DisplayNames']) {
  const what = 'Intl.' + name;
  // Called without new too: NumberFormat and DateTimeFormat allow it.
  Intl[name] = new Proxy(Intl[name], {
    construct(target, args) { recordIcu(what); return Reflect.construct(target, args); },
    apply(target, self, args) { recordIcu(what); return Reflect.apply(target, self, args); },
  });
  icuChecks.push(() => new Intl[name]('en', name === 'DisplayNames' ? { type: 'region' } : undefined));
}
icuChecking = true;
for (const check of icuChecks) check();
icuChecking = false;
const icuSelfCheck = icuChecked.size === icuChecks.length ? 'recorded' : 'recorded ' + icuChecked.size + ' of ' + icuChecks.length;
`;
}
