import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { hashPortalToken } from '@wirehook/core';
import { baseApp, errorHandler, notFound } from '@wirehook/http-api';
import type { PortalToken } from '@wirehook/store';
import type { PortalDeps } from './deps.ts';
import { goneHtml, pageHeaders, pageLocale, readAssets, shellHtml } from './page.ts';
import { portalApi } from './portal-api/portal-api.ts';

/** Where `./dev` builds the front end (services/portal/web → services/portal/dist). */
export const PORTAL_DIST_DIR = fileURLToPath(new URL('../dist', import.meta.url));

/**
 * The customer portal's server: the page (`/l/<token>` from a link, `/r/<hash>` after the
 * page has taken the token out of the address bar), its static files, and its token-scoped
 * API (`/api/…`, portal-api/: the gateway's routes scoped to the link's consumer). No cookies anywhere:
 * the page keeps the token in memory and the tab's sessionStorage.
 */
export function createPortal(deps: PortalDeps, options: { distDir?: string } = {}): Express {
  const distDir = options.distDir ?? PORTAL_DIST_DIR;
  // A link's path is its token (the only credential), a reload's its session: never in a trace.
  const app = baseApp(deps, { tracedPath: redactedPath });

  // Vite names files by content: cache them for a year. One not there (a tab still on an
  // earlier build asks for its files) is a 404, not a logged 500.
  app.use('/assets', express.static(`${distDir}/assets`, { immutable: true, maxAge: '365d', index: false }), notFound);

  // The built front end's entry files: read once (./dev builds it before the server starts),
  // again only while it is not built yet.
  let built = readAssets(distDir);
  const page = async (req: express.Request, res: express.Response, token: PortalToken | null, session: string) => {
    const assets = (built ??= readAssets(distDir));
    const accept = req.get('accept-language');
    if (token === null || token.expiresAt <= deps.clock.now()) {
      // A known link keeps its frame origin, so its parent shows the message, not a browser error.
      res.status(token === null ? 404 : 410).set(pageHeaders(token?.frameOrigin ?? null));
      res.send(goneHtml(pageLocale(token?.locale ?? null, accept), token === null ? 'unknown' : 'expired', assets?.styles[0]));
      return;
    }
    res.set(pageHeaders(token.frameOrigin));
    if (assets === null) {
      res
        .status(503)
        .send('<!doctype html><title>Not built</title><p>The portal front end is not built: run ./dev start (or ./dev pnpm -s build:portal).</p>\n');
      return;
    }
    const theme = typeof req.query['theme'] === 'string' ? req.query['theme'] : null;
    res.send(shellHtml({ assets, locale: pageLocale(token.locale, accept), session, theme }));
  };

  app.get('/l/:token', async (req, res) => {
    const hash = hashPortalToken(String(req.params['token']));
    await page(req, res, await deps.store.portalTokens.find(hash), hash);
  });
  app.get('/r/:session', async (req, res) => {
    const hash = String(req.params['session']);
    await page(req, res, /^[0-9a-f]{64}$/.test(hash) ? await deps.store.portalTokens.find(hash) : null, hash);
  });

  app.use('/api', portalApi(deps));
  app.use(notFound);
  app.use(redactLinkCredentials);
  app.use(errorHandler(deps.logger));
  return app;
}

/**
 * A page path's credential: the link's token (`/l/…`) or the session hash the page reloads with
 * (`/r/…`), in any spelling a request may give it — Express's routes ignore case, and a path that
 * is no route (`//l/…`, `/l//…`) still holds the credential it was sent with.
 */
const CREDENTIAL_PATH = /^\/+(l|r)\/+([^/?]+)/i;
const placeholderOf = (kind: string) => (kind === 'l' ? '[token]' : '[session]');

/** `path` with its credential as `/l/[token]` or `/r/[session]`: what a trace or a log line may show of it. */
function redactedPath(path: string): string {
  return path.replace(CREDENTIAL_PATH, (_, spelled: string) => `/${spelled.toLowerCase()}/${placeholderOf(spelled.toLowerCase())}`);
}

/**
 * Before an error is logged: the path's token or session becomes `[token]`/`[session]`, in
 * the path and in the error's text (a store error may quote what it was asked), so a failed
 * request on a link never puts its credential in the logs.
 */
function redactLinkCredentials(err: unknown, req: express.Request, _res: express.Response, next: express.NextFunction): void {
  const match = CREDENTIAL_PATH.exec(req.url);
  if (match === null) return next(err);
  const [, spelled, credential] = match as unknown as [string, string, string];
  const kind = spelled.toLowerCase();
  const placeholder = placeholderOf(kind);
  req.url = redactedPath(req.url);
  const decoded = decodeOrSelf(credential);
  // A link's token is also known by its hash (the session of its reloads).
  const secrets = [credential, decoded, ...(kind === 'l' ? [hashPortalToken(decoded)] : [])];
  if (err instanceof Error) {
    for (const secret of secrets) {
      err.message = err.message.replaceAll(secret, placeholder);
      if (err.stack !== undefined) err.stack = err.stack.replaceAll(secret, placeholder);
    }
  }
  next(err);
}

function decodeOrSelf(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
