import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Router } from 'express';
import { openApiDocument } from './document.ts';

const require = createRequire(import.meta.url);

// The reference page: Redoc's standalone bundle, served from our own origin (no CDN at run
// time), reading the document from /v1/openapi.json. Redoc renders in the page, so its script
// needs inline styles and a blob: worker, nothing from elsewhere.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Wirehook API reference</title>
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="/v1/openapi.json" hide-download-button="false" expand-responses="200,201,202" path-in-middle-panel="true"></redoc>
<script src="/docs/redoc.standalone.js"></script>
</body>
</html>
`;

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  'worker-src blob:',
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The paths apiDocsRouter serves (from the app's root), for `enteredFor`. */
export const API_DOCS_PATHS = /^\/(docs(\/|$)|v1\/openapi\.json\/?$)/i;

/**
 * GET /v1/openapi.json (no key: the document is public, like the spec it describes) and the
 * API reference page at /docs. Mounted before the /v1 authentication.
 */
export function apiDocsRouter(options: { publicUrl?: string | undefined } = {}): Router {
  const router = Router();
  // Both made on first use, not at start: most gateways never serve them, and the document
  // costs about 13 ms of zod-to-JSON-Schema work that every start (and test harness) would pay.
  let document: Record<string, unknown> | undefined;
  let redoc: Buffer | undefined;

  // `servers` names this Wirehook: API_PUBLIC_URL when set, else the origin the request came
  // to (its Host, and its scheme as Express sees it); docs/openapi.json keeps the placeholder.
  router.get('/v1/openapi.json', (req, res) => {
    document ??= openApiDocument();
    const url = (options.publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`).replace(/\/+$/, '');
    const served = { ...document, servers: [{ url, description: 'This Wirehook' }] };
    res
      .type('application/json')
      .set({ 'cache-control': 'no-cache', vary: 'host' })
      .send(`${JSON.stringify(served, null, 2)}\n`);
  });
  router.get(['/docs', '/docs/'], (_req, res) => {
    res.type('html').set({ 'content-security-policy': CSP, 'cache-control': 'no-cache' }).send(PAGE);
  });
  router.get('/docs/redoc.standalone.js', (_req, res) => {
    redoc ??= readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'));
    res.type('text/javascript').set('cache-control', 'public, max-age=3600').send(redoc);
  });
  return router;
}
