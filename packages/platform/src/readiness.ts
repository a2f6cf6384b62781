import { within } from '@wirehook/core';
/**
 * One thing `/readyz` checks: `probe` resolves when it answers, throws (or hangs) when not.
 * `gates` says whether a failure takes the pod out of its Service. Only what the pod needs to
 * serve its own traffic gates; a dependency it works on without (degraded: Redis for rate
 * limits, NATS for message-intake, whose sends are stored and swept) is still probed and
 * named in the body and in `wirehook_readiness_check_up`, but the pod stays ready: pulling
 * every replica out of the Service over a blip they ride through turns a degradation into
 * an outage.
 */
export interface ReadinessCheck {
  /** What is checked, as `/readyz` names it: `store`, `nats`, `redis`. */
  name: string;
  /** True: a failure makes `/readyz` 503. False: reported only. */
  gates: boolean;
  probe(): Promise<unknown>;
}

/** Gates once a process's stop begins: a load balancer that reads `/readyz` sends it no new work while it drains. */
export const stoppingCheck: ReadinessCheck = {
  name: 'stopping',
  gates: true,
  probe: async () => Promise.reject(new Error('stopping: draining its work in flight')),
};

/** What `/readyz` answers: each check `ok` or what went wrong; ready when every gating check is `ok`. */
export interface Readiness {
  ready: boolean;
  checks: Record<string, string>;
}

/** How long one probe may take before it counts as failed (a hung dependency is not ready). */
export const PROBE_TIMEOUT_MS = 1_000;

/** Runs every check at once, each bounded by `timeoutMs`. */
export async function checkReadiness(checks: readonly ReadinessCheck[], timeoutMs = PROBE_TIMEOUT_MS): Promise<Readiness> {
  const results = await Promise.all(
    checks.map(async (check): Promise<[ReadinessCheck, string]> => {
      try {
        await within(check.probe(), timeoutMs, () => new Error(`no answer within ${timeoutMs} ms`));
        return [check, 'ok'];
      } catch (err) {
        return [check, err instanceof Error ? err.message : String(err)];
      }
    }),
  );
  return {
    ready: results.every(([check, state]) => !check.gates || state === 'ok'),
    checks: Object.fromEntries(results.map(([check, state]) => [check.name, state])),
  };
}

/** An id no org has: reading it is a round trip to the store that finds nothing. */
const PROBE_ORG_ID = 'org_00000000000000000000000000';

/** The store answers a read. Every service with data needs it for its own work: it gates. */
export function storeCheck(store: { orgs: { get(id: never): Promise<unknown> } }): ReadinessCheck {
  return { name: 'store', gates: true, probe: () => store.orgs.get(PROBE_ORG_ID as never) };
}

/**
 * NATS answers a ping. It gates where the work comes from NATS (dispatcher, recovery), not
 * where it is only a wake-up after the store has the work (message-intake: sends are stored
 * and answered 202, the sweeper delivers them).
 */
export function natsCheck(bus: { ping(): Promise<void> }, options: { gates: boolean }): ReadinessCheck {
  return { name: 'nats', gates: options.gates, probe: () => bus.ping() };
}

/** Redis answers a read. Never gates: without it rate limits fail open and keyed sends go to the store. */
export function redisCheck(kv: { get(key: string): Promise<unknown> }): ReadinessCheck {
  return { name: 'redis', gates: false, probe: () => kv.get('readiness-probe') };
}

/** A server a pod's traffic comes to is listening (not yet, or no longer while draining: not ready). Named after it. */
export function listenerCheck(server: { readonly name: string; listening(): boolean }): ReadinessCheck {
  return {
    name: server.name,
    gates: true,
    probe: async () => {
      if (!server.listening()) throw new Error('not listening');
    },
  };
}
