// Where a V8 call frame's code comes from, one way for every reader of V8's files
// (bench/profile-summary.ts for CPU profiles, bench/alloc/summary.ts for heap samples), so
// their "by package" views group the same code under the same names.

/** A call frame as V8's CPU and sampling heap profiles write it. */
export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

/** A file's path, short: a Wirehook file from `packages/`, `services/` or `bench/`, an npm file as `package@version path`. */
export const shortUrl = (url: string): string =>
  url
    .replace(/^file:\/\//, '')
    .replace(/.*\/node_modules\/\.pnpm\/([^/]+)\/node_modules\//, '$1 ')
    .replace(/^.*?\/(packages|services|bench)\//, '$1/');

/** Whether a frame is Wirehook's own code (a package, a service or the bench), not a library's. */
export const ownCode = (url: string): boolean => /\/(packages|services|bench)\//.test(url) && !url.includes('node_modules');

/** A frame's name and place: `fn packages/core/src/ids.ts:12`, or `fn (native)`. */
export const frameName = ({ functionName, url, lineNumber }: CallFrame): string =>
  `${functionName || '(anonymous)'} ${url ? `${shortUrl(url)}:${lineNumber + 1}` : '(native)'}`;

/** Where a frame's code comes from, coarsely: an npm package, a Node module, a Wirehook package or service, or a native function. */
export const packageOf = ({ functionName, url }: CallFrame): string => {
  const npm = /node_modules\/\.pnpm\/(@?[^@/]+(?:\+[^@/]+)?)@/.exec(url);
  if (npm) return `npm ${npm[1]!.replace('+', '/')}`;
  if (url.startsWith('node:')) return `node ${url.replace(/^node:(internal\/)?/, '').replace(/\/.*$/, '')}`;
  if (ownCode(url)) {
    const own = /\/(packages|services)\/([^/]+)\//.exec(url);
    return own ? `${own[1]}/${own[2]}` : 'bench';
  }
  return url ? shortUrl(url) : functionName.startsWith('(') ? functionName : `native ${functionName || '(anonymous)'}`;
};
