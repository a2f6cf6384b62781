// Endpoints' transformation code, as this dispatcher has it: a claimed job carries only the
// transformation's hash (its code is up to 32 KB, and thousands of claims a second would carry
// it), so the code is read once per change of it — one point read — and kept by endpoint.
import type { EndpointId } from '@wirehook/core';
import type { DeliveryJob, Store } from '@wirehook/store';

/** Most endpoints' code kept (32 KB at most each: 32 MB at the very most). */
const CAPACITY = 1_000;

interface Known {
  sha256: string;
  code: string;
}

/** The code of each transformed endpoint this dispatcher sends to, by endpoint, checked against the job's hash. */
export class TransformationCodes {
  readonly #store: Pick<Store, 'endpoints'>;
  readonly #known = new Map<string, Known>();
  /** Reads under way, by endpoint: deliveries of one endpoint claimed together make one read. */
  readonly #reading = new Map<string, Promise<Known | null>>();

  constructor(store: Pick<Store, 'endpoints'>) {
    this.#store = store;
  }

  /**
   * The code to run for `job`, or null when its endpoint has no enabled transformation now (it
   * was removed or disabled since the claim: the webhook goes as the endpoint stands). A code
   * changed since the claim is the newer one: what the endpoint says when it is sent.
   */
  async codeOf(job: DeliveryJob): Promise<string | null> {
    const ref = job.endpoint.transformation;
    if (!ref?.enabled) return null;
    const id = job.endpoint.id;
    const known = this.#known.get(id);
    if (known?.sha256 === ref.sha256) {
      // Most recently used last: the first in the map is the one to drop.
      this.#known.delete(id);
      this.#known.set(id, known);
      return known.code;
    }
    const read = await this.#read(job, id);
    return read?.code ?? null;
  }

  #read(job: DeliveryJob, id: EndpointId): Promise<Known | null> {
    let reading = this.#reading.get(id);
    if (reading === undefined) {
      reading = this.#store.endpoints
        .transformation(job.tenant, id)
        .then((stored) => {
          if (stored === null || !stored.enabled) {
            this.#known.delete(id);
            return null;
          }
          const known = { sha256: stored.sha256, code: stored.code };
          this.#known.delete(id);
          if (this.#known.size >= CAPACITY) this.#known.delete(this.#known.keys().next().value!);
          this.#known.set(id, known);
          return known;
        })
        .finally(() => this.#reading.delete(id));
      this.#reading.set(id, reading);
    }
    return reading;
  }
}
