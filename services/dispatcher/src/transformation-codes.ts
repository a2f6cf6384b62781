// Endpoints' transformation code, as this dispatcher has it: a claimed job carries only the
// transformation's hash (its code is up to 32 KB, and thousands of claims a second would carry
// it), so the code is read once per change of it — one point read — and kept by endpoint.
import { TransformerUnavailableError, type EndpointId } from '@wirehook/core';
import type { DeliveryJob, Store } from '@wirehook/store';
import { remember } from './recent-map.ts';

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
   * The code to run for `job` (claimed with an enabled transformation). A code changed since the
   * claim is the newer one: what the endpoint says when it is sent.
   * @throws TransformerUnavailableError when the code cannot be read (the store failed), or the
   * endpoint has no enabled transformation any more (removed, disabled or deleted since the
   * claim): the send is put off, and claimed again as the endpoint stands — never sent
   * untransformed on the strength of a claim that said otherwise.
   */
  async codeOf(job: DeliveryJob): Promise<string> {
    const ref = job.endpoint.transformation;
    if (!ref?.enabled) throw new TransformerUnavailableError('the delivery was claimed without a transformation to run');
    const id = job.endpoint.id;
    const known = this.#known.get(id);
    if (known?.sha256 === ref.sha256) {
      remember(this.#known, id, known, CAPACITY); // most recently used last: the first is the one to drop
      return known.code;
    }
    let read: Known | null;
    try {
      read = await this.#read(job, id);
    } catch (err) {
      throw new TransformerUnavailableError(`the transformation's code could not be read: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    if (read === null) throw new TransformerUnavailableError("the endpoint's transformation was removed or disabled since the delivery was claimed");
    return read.code;
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
          remember(this.#known, id, known, CAPACITY);
          return known;
        })
        .finally(() => this.#reading.delete(id));
      this.#reading.set(id, reading);
    }
    return reading;
  }
}
