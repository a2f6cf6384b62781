// The `route` label of the HTTP metrics: the API's route template a request path falls under,
// read from the path itself rather than from Express's routing state (which is reset by the
// time an error is answered, so a 401 or a 404 for an unknown id used to be `unmatched`, and
// a router mounted at /v1 lost its prefix). Templates, not paths: ids would make the label
// set unbounded.

const SEGMENT = '[^/]+';

/** Every route of the public API under /v1 (docs/openapi.json's paths, and the document itself), as templates; first match wins. */
const V1_TEMPLATES = [
  '/v1/openapi.json',
  '/v1/alert-conditions',
  '/v1/alert-targets',
  '/v1/alert-targets/:id',
  '/v1/alert-targets/:id/test',
  '/v1/consumers',
  '/v1/consumers/:id',
  '/v1/consumers/:id/portal',
  '/v1/deliveries/:id',
  '/v1/deliveries/:id/attempts',
  '/v1/deliveries/:id/retry',
  '/v1/egress-ips',
  '/v1/endpoints',
  '/v1/endpoints/:id',
  '/v1/endpoints/:id/recover',
  '/v1/endpoints/:id/recoveries/:id',
  '/v1/endpoints/:id/rotate-secret',
  '/v1/endpoints/:id/stats',
  '/v1/endpoints/:id/transformation/simulate',
  '/v1/event-types',
  // Before `:id`, which its name would match.
  '/v1/event-types/openapi.json',
  '/v1/event-types/:id',
  '/v1/event-types/:id/versions',
  '/v1/messages',
  '/v1/messages/:id',
] as const;

/** What the portal's token API serves of the /v1 API, under /api (services/portal/src/portal-api). */
const PORTAL_API = ['/v1/endpoints', '/v1/event-types', '/v1/egress-ips', '/v1/messages', '/v1/deliveries'];

/**
 * Every route served, as templates: the health route, MCP, the reference page, the /v1 API, and
 * the portal's page with its token API (what it serves of the /v1 routes under /api, and its own).
 */
export const ROUTE_TEMPLATES = [
  '/healthz',
  '/mcp',
  '/docs',
  '/docs/redoc.standalone.js',
  ...V1_TEMPLATES,
  '/l/:id',
  '/r/:id',
  '/assets/:id',
  '/api/session',
  '/api/endpoints/:id/secret',
  '/api/endpoints/:id/test',
  ...V1_TEMPLATES.filter((t) => PORTAL_API.some((prefix) => t === prefix || t.startsWith(`${prefix}/`))).map((t) => t.replace(/^\/v1/, '/api')),
] as const;

const MATCHERS = ROUTE_TEMPLATES.map((template) => ({
  template,
  // Escaped: a template's `.` is a dot (`openapi.json`), not any character (an event type `openapi_json`).
  pattern: new RegExp(`^${template.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:id/g, SEGMENT)}/?$`),
}));

/** What `routeLabel` says of a path no route of ours falls under. */
export const UNMATCHED = 'unmatched';

/** The template `path` (without its query) falls under, or UNMATCHED. */
export function routeLabel(path: string): string {
  const bare = path.split('?')[0] ?? '';
  return MATCHERS.find((m) => m.pattern.test(bare))?.template ?? UNMATCHED;
}

/** Each answered request's label, made once: its log line and metrics and its span read it alike. */
const labels = new WeakMap<object, string>();

/** The template `req.originalUrl` falls under (routeLabel), made once a request. */
export function requestRoute(req: { originalUrl: string }): string {
  let label = labels.get(req);
  if (label === undefined) labels.set(req, (label = routeLabel(req.originalUrl)));
  return label;
}

/** The methods the API answers; any other is labelled `other`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The `method` label: the request's, among the methods the API answers, else `other` — a
 * client may send any token as a method (PROPFIND, MKCALENDAR, …), and every one had made a new
 * series per route without a key: 340 series became 17,580 (`/metrics` 35 KB → 2.1 MB).
 */
export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'other';
}
