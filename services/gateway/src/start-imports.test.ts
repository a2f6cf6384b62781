// What a gateway's start imports: not the MCP SDK (loaded by the first POST /mcp), pino-pretty
// (by a logger writing to a terminal), Ajv (by the first event schema compiled; core, which
// every service imports, holds the catalog), grpc-health-check (by the first gRPC server or
// health check; the gateway serves no gRPC) or undici (by the first HttpEgress; the gateway sends
// no webhook). Imported alone on this machine: the SDK and the tools ≈ 250 ms of CPU, undici
// ≈ 140, grpc-health-check ≈ 75, Ajv ≈ 60, pino-pretty ≈ 40 (the gateway's whole start ≈ 900–1,000).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'start-imports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** The modules a start leaves for later, by where they lie under node_modules. */
const LAZY = /\/node_modules\/(@modelcontextprotocol\/|pino-pretty\/|ajv\/dist\/2020\.js|grpc-health-check\/|undici\/)/;

/** The modules a fresh process resolves while it runs `body` (ESM), those matching `pattern`, each once. */
function resolvedDuring(body: string, pattern: RegExp): string[] {
  // Into a file, whole: a write to a stdout Node has made non-blocking may be cut short at an exit.
  const out = join(dir, `resolved-${Math.random().toString(36).slice(2)}.json`);
  const script = `
    import { registerHooks } from 'node:module';
    import { writeFileSync } from 'node:fs';
    const seen = new Set();
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.add(r.url); return r; } });
    ${body}
    writeFileSync(${JSON.stringify(out)}, JSON.stringify([...seen].filter((url) => new RegExp(${JSON.stringify(pattern.source)}).test(url))));
    process.exit(0);
  `;
  // Its own bound: while the child runs it blocks this worker, and vitest's timer with it.
  execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: here, env: { ...process.env, LOG_FORMAT: 'json' }, timeout: 25_000 });
  return JSON.parse(readFileSync(out, 'utf8')) as string[];
}

describe("the gateway's start", () => {
  it('imports the gateway and makes its JSON logger without the MCP SDK, pino-pretty, Ajv, grpc-health-check or undici', () => {
    const loaded = resolvedDuring(
      `const { createGateway } = await import('./index.ts');
       const { createLogger } = await import('@wirehook/platform');
       createLogger({ name: 'gateway', format: 'json' });
       if (typeof createGateway !== 'function') throw new Error('no createGateway');`,
      LAZY,
    );
    expect(loaded).toEqual([]);
  }, 30_000);

  it('loads them when asked for: the route’s first call, a terminal’s logger (the check above can see them)', () => {
    const loaded = resolvedDuring(
      `const { loopbackApi } = await import('./mcp-route.ts');
       await loopbackApi({ socket: { localAddress: '127.0.0.1', localPort: 1 }, get: () => '' });
       const { createLogger } = await import('@wirehook/platform');
       createLogger({ name: 'gateway', format: 'pretty' });
       const { checkCatalogEntry } = await import('@wirehook/core');
       checkCatalogEntry({ type: 'object' }, [{}]);
       const { addHealthService } = await import('@wirehook/rpc');
       const served = [];
       addHealthService({ addService: (service) => served.push(Object.keys(service)) }, ['wirehook.intake.v1.Intake']);
       if (served.length !== 1) throw new Error('the health service was not added');`,
      LAZY,
    );
    expect(loaded.some((url) => url.includes('@modelcontextprotocol'))).toBe(true);
    expect(loaded.some((url) => url.includes('pino-pretty'))).toBe(true);
    expect(loaded.some((url) => url.includes('/ajv/dist/2020.js'))).toBe(true);
    expect(loaded.some((url) => url.includes('grpc-health-check'))).toBe(true);
  }, 30_000);

  // Apart: the MCP tools of the test above load undici too. The first test imports the package without it.
  it('loads undici with the first HttpEgress made', () => {
    const loaded = resolvedDuring(
      `const { AddressPolicy, HttpEgress } = await import('@wirehook/egress');
       await new HttpEgress({ policy: new AddressPolicy({ allowHosts: 'localhost' }) }).close();`,
      LAZY,
    );
    expect(loaded.some((url) => url.includes('/node_modules/undici/'))).toBe(true);
  }, 30_000);
});
