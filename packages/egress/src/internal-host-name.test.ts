import { describe, expect, it } from 'vitest';
import { isInternalHostName } from './internal-host-name.ts';

describe('isInternalHostName', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'localhost.',
    'foo.localhost',
    'intranet',
    'printer',
    'printer.',
    'nas.local',
    'x.cluster.local',
    'api.default.svc',
    'api.default.svc.cluster.local',
    'db.internal',
    'metadata.google.internal',
    'wiki.intranet',
    'router.lan',
    'box.home.arpa',
    'mail.corp',
    'host.localdomain',
    'localhost.localdomain',
    'Mail.CORP.',
  ])('%s is internal', (host) => {
    expect(isInternalHostName(host)).toBe(true);
  });

  it.each([
    'example.com',
    'api.example.com.',
    'local.example.com',
    'localhost.example.com',
    'internal.example.org',
    'svc.example.net',
    'home.arpa.example.net',
    'example.mylan',
    'example.xcorp',
    'corporate.io',
    'arpa.example',
  ])('%s is not internal', (host) => {
    expect(isInternalHostName(host)).toBe(false);
  });
});
