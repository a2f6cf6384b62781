/** One dependency a service needs to do its work: `probe` resolves when it answers, throws (or hangs) when not. */
export interface ReadinessCheck {
  /** What is checked, as `/readyz` names it: `store`, `nats`, `redis`. */
  name: string;
  probe(): Promise<unknown>;
}

/** What `/readyz` answers: each check `ok` or what went wrong. */
export interface Readiness {
  ready: boolean;
  checks: Record<string, string>;
}

/** How long one probe may take before it counts as failed (a hung dependency is not ready). */
export const PROBE_TIMEOUT_MS = 1_000;

/** Runs every check at once, each bounded by `timeoutMs`. */
export async function checkReadiness(checks: readonly ReadinessCheck[], timeoutMs = PROBE_TIMEOUT_MS): Promise<Readiness> {
  const results = await Promise.all(
    checks.map(async (check): Promise<[string, string]> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([check.probe(), late]);
        return [check.name, 'ok'];
      } catch (err) {
        return [check.name, err instanceof Error ? err.message : String(err)];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return { ready: results.every(([, state]) => state === 'ok'), checks: Object.fromEntries(results) };
}

/** An id no org has: reading it is a round trip to the store that finds nothing. */
const PROBE_ORG_ID = 'org_00000000000000000000000000';

/** The store answers a read. */
export function storeCheck(store: { orgs: { get(id: never): Promise<unknown> } }): ReadinessCheck {
  return { name: 'store', probe: () => store.orgs.get(PROBE_ORG_ID as never) };
}

/** NATS answers a ping. */
export function natsCheck(bus: { ping(): Promise<void> }): ReadinessCheck {
  return { name: 'nats', probe: () => bus.ping() };
}

/** Redis answers a read. */
export function redisCheck(kv: { get(key: string): Promise<unknown> }): ReadinessCheck {
  return { name: 'redis', probe: () => kv.get('readiness-probe') };
}

/** A service whose feature is not built yet is never ready, so no traffic or rollout counts on it. */
export function notBuiltCheck(issue: string): ReadinessCheck {
  return { name: 'service', probe: async () => Promise.reject(new Error(`not built yet (${issue})`)) };
}
