import type { RunningWirehook } from '../launchers/launcher.ts';

/** An org on the Business plan with one live key: one rate-limit bucket of 20,000 requests a minute. */
export interface Tenant {
  orgId: string;
  key: string;
}

/**
 * Makes `count` orgs with a live key each through the admin CLI, a few at a time. The
 * spec's rate limit (Business: 20,000 requests a minute per environment) stays on; the
 * bench spreads its load over enough orgs instead.
 */
export async function createTenants(wirehook: RunningWirehook, count: number, name = 'bench'): Promise<Tenant[]> {
  const tenants: Tenant[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const org = await wirehook.admin(['org', 'create', '--name', `${name} ${i + 1}`, '--plan', 'business']);
      const key = await wirehook.admin(['key', 'create', '--org', String(org['id']), '--env', 'live']);
      tenants[i] = { orgId: String(org['id']), key: String(key['key']) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, count) }, worker));
  return tenants;
}
