import { isDeepStrictEqual } from 'node:util';
import type { DeliveryJob } from '../ports/delivery-port.ts';
import type { CreatedMessage } from '../ports/message-port.ts';

// A claimed job carries its endpoint (a dozen fields, with headers, TLS and OAuth settings) and
// the endpoint's sealed secrets; through the threaded store each job's copy was serialized on the
// writer's thread and rebuilt on the caller's, the same endpoint once a delivery — and rebuilt
// objects that live as long as a delivery are what the caller's collector keeps most (issue 46:
// docs/benchmarks.md, thirty-fourth session). Now the writer's thread leaves an endpoint and its
// secrets out of a job when they equal what it last sent whole for that endpoint, and the
// caller's side puts back what it last received whole. Both sides record an endpoint only when
// it crosses whole, in the order the answers cross (one port; answers settled in order), and
// forget the least recently recorded past KEPT_ENDPOINTS: the same operations in the same order,
// so the two always hold the same endpoints. Each side numbers the crossings it records, and a
// job left out names the one it stands for: if the sides ever disagreed, the caller refuses the
// job rather than send with another endpoint or secret. Equality is judged on the writer's side,
// against what it sent, so an endpoint changed in any way (its URL, a header, a secret rotated or
// expired) crosses whole again. What the caller's side puts back is frozen: every job that
// reuses it shares it.

/** Endpoints each side keeps (the writer's last sent, the caller's last received): a few MB at most with certificates in them. */
export const KEPT_ENDPOINTS = 256;

type Whole = Pick<DeliveryJob, 'endpoint' | 'secrets'> & { crossing: number };
/** A job as it crosses: its endpoint and secrets absent when left out, and then the crossing that carried them whole. */
type Crossing = Omit<DeliveryJob, 'endpoint' | 'secrets'> & Partial<Pick<DeliveryJob, 'endpoint' | 'secrets'>> & { endpointCrossing?: number };

/** The jobs in a store call's answer: a created message's claimed ones, and claim's and claimMany's. */
export function jobsIn(call: { repo: string; method: string }, value: unknown): DeliveryJob[] {
  if (value === null || typeof value !== 'object') return [];
  if (call.repo === 'messages' && call.method === 'create') return (value as CreatedMessage).claimed ?? [];
  if (call.repo !== 'deliveries') return [];
  if (call.method === 'claim') return [value as DeliveryJob];
  if (call.method === 'claimMany')
    return (value as unknown[]).filter((result): result is DeliveryJob => result !== null && typeof result === 'object' && 'delivery' in result);
  return [];
}

/** Records `whole` as the latest of `id`, forgetting the least recently recorded past KEPT_ENDPOINTS. */
function record(kept: Map<string, Whole>, id: string, whole: Whole): void {
  kept.delete(id);
  kept.set(id, whole);
  if (kept.size > KEPT_ENDPOINTS) kept.delete(kept.keys().next().value!);
}

/** The writer's thread's side: what it has sent whole, by endpoint id. */
export class SentEndpoints {
  readonly #sent = new Map<string, Whole>();
  #crossings = 0;

  /** Leaves out of each job its endpoint and secrets when they equal what was last sent whole for it; records the others. */
  leaveOut(jobs: readonly DeliveryJob[]): void {
    for (const job of jobs) {
      const id = job.delivery.endpointId;
      const last = this.#sent.get(id);
      if (last !== undefined && isDeepStrictEqual(last.endpoint, job.endpoint) && isDeepStrictEqual(last.secrets, job.secrets)) {
        const out = job as Crossing;
        out.endpoint = undefined;
        out.secrets = undefined;
        out.endpointCrossing = last.crossing;
      } else record(this.#sent, id, { endpoint: job.endpoint, secrets: job.secrets, crossing: ++this.#crossings });
    }
  }
}

/** The caller's side: what it has received whole, by endpoint id. */
export class ReceivedEndpoints {
  readonly #received = new Map<string, Whole>();
  #crossings = 0;

  /**
   * Puts back into each job the endpoint and secrets left out of it; records those that came
   * whole (all of an answer's first, so one refused job leaves the record as the writer's).
   * @throws Error when one left out is not the crossing this side holds for its endpoint
   */
  putBack(jobs: readonly DeliveryJob[]): void {
    const crossed = jobs as Crossing[];
    for (const job of crossed) {
      if (job.endpoint === undefined) continue;
      record(this.#received, job.delivery.endpointId, { endpoint: deepFreeze(job.endpoint), secrets: deepFreeze(job.secrets!), crossing: ++this.#crossings });
    }
    for (const job of crossed) {
      if (job.endpoint !== undefined) continue;
      const id = job.delivery.endpointId;
      const kept = this.#received.get(id);
      if (kept === undefined || kept.crossing !== job.endpointCrossing) {
        throw new Error(`the store's thread left out endpoint ${id} as sent in crossing ${job.endpointCrossing}, which is not the one this side holds`);
      }
      job.endpoint = kept.endpoint;
      job.secrets = kept.secrets;
      delete job.endpointCrossing;
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
