// What every service's start leaves unloaded: Node's bundled undici, which an ESM import of
// `node:http` loads (Node reads each export of a built-in module for its namespace, and `http`'s
// lazy `WebSocket` is undici: ≈ 60 ms of CPU a process), and nodemailer, which alerting requires
// with its first mail (its ESM build imports `node:http`). @wirehook/core's nodeHttp says why.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const SERVICES = ['gateway', 'message-intake', 'dispatcher', 'egress-relay', 'recovery', 'alerting', 'portal'];
/** Beside the services' own modules: embedded mode's, and the cluster launcher's wait for a started service. */
const ALSO = ['services/embedded/src/create-embedded.ts', 'services/cluster/src/start-wait.ts'];
const UNDICI = 'NativeModule internal/deps/undici/undici';
const dir = mkdtempSync(join(tmpdir(), 'start-builtins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** In a fresh process: whether Node's undici was loaded, and which nodemailer modules were resolved, after `body`. */
function loadedAfter(body: string): { undici: boolean; nodemailer: string[] } {
  // Into a file, whole: a write to a stdout Node has made non-blocking may be cut short at an exit.
  const out = join(dir, `loaded-${Math.random().toString(36).slice(2)}.json`);
  const script = `
    import { registerHooks } from 'node:module';
    import { writeFileSync } from 'node:fs';
    const nodemailer = new Set();
    registerHooks({
      resolve(specifier, context, next) {
        const r = next(specifier, context);
        if (r.url.includes('/nodemailer/')) nodemailer.add(r.url);
        return r;
      },
    });
    ${body}
    writeFileSync(${JSON.stringify(out)}, JSON.stringify({ undici: process.moduleLoadList.includes(${JSON.stringify(UNDICI)}), nodemailer: [...nodemailer] }));
    process.exit(0);
  `;
  execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, LOG_FORMAT: 'json' }, timeout: 40_000 });
  return JSON.parse(readFileSync(out, 'utf8')) as { undici: boolean; nodemailer: string[] };
}

const serviceImports = [...SERVICES.map((service) => `services/${service}/src/index.ts`), ...ALSO]
  .map((file) => `await import(${JSON.stringify(pathToFileURL(join(root, file)).href)});`)
  .join('\n');

it('imports every service (and the platform’s HTTP servers) without Node’s undici or nodemailer', () => {
  expect(loadedAfter(`${serviceImports}\nawait import('@wirehook/platform');`)).toEqual({ undici: false, nodemailer: [] });
}, 45_000);

it('sees them when they load: an ESM import of node:http, alerting’s first mail', () => {
  expect(loadedAfter(`await import('node:http');`).undici).toBe(true);
  const mailed = loadedAfter(`
    const { SmtpMailer } = await import(${JSON.stringify(pathToFileURL(join(root, 'services/alerting/src/smtp-mailer.ts')).href)});
    // Nothing listens on port 1: the mail fails, after nodemailer was required for it.
    const mail = { from: 'a@example.test', to: 'b@example.test', subject: 's', text: 't', messageId: '<m@example.test>' };
    await new SmtpMailer({ url: 'smtp://127.0.0.1:1', timeoutMs: 1_000 }).send(mail).catch(() => {});`);
  expect(mailed.nodemailer.length).toBeGreaterThan(0);
}, 45_000);
