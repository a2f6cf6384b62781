// The route label: a path's template (never its ids), and one label a request for its log, metrics and span.
import { describe, expect, it } from 'vitest';
import { requestRoute, routeLabel, UNMATCHED } from './route-label.ts';

describe('routeLabel', () => {
  it('names the template a path falls under, its query and ids aside; a path of no route is unmatched', () => {
    expect(routeLabel('/v1/messages?limit=5')).toBe('/v1/messages');
    expect(routeLabel('/v1/endpoints/ep_01HZX/rotate-secret')).toBe('/v1/endpoints/:id/rotate-secret');
    expect(routeLabel('/v1/nothing-here')).toBe(UNMATCHED);
  });
});

describe('requestRoute', () => {
  it('is the label of the request’s original URL, made once: what its log line and its span read is the same', () => {
    const req = { originalUrl: '/v1/messages' };
    expect(requestRoute(req)).toBe('/v1/messages');
    req.originalUrl = '/v1/nothing-here'; // not read again
    expect(requestRoute(req)).toBe('/v1/messages');
    expect(requestRoute({ originalUrl: '/v1/nothing-here' })).toBe(UNMATCHED);
  });
});
