import type { KeyObject } from 'node:crypto';
import { type EndpointHeaders, openEndpointHeaders, signingKeyObject, type SecretBox } from '@wirehook/core';

/** How many endpoint secrets stay opened; beyond it the oldest opened is dropped. */
const DEFAULT_CAPACITY = 10_000;

/**
 * The HMAC keys of sealed signing secrets, opened once and kept: opening (AES-256-GCM)
 * and decoding on every send cost more than the signing itself, and a KeyObject spares
 * `createHmac` importing the raw key on every signature. A rotated secret is a new
 * sealed text, so it gets its own entry; old entries age out by capacity. The keys live
 * only in this process's memory, where every send already had them.
 */
export class SigningKeys {
  readonly #secretBox: SecretBox;
  readonly #capacity: number;
  readonly #keys = new Map<string, KeyObject>();
  /** Endpoints' custom headers, opened, by endpoint and sealed text (as the keys: a new set is a new text). */
  readonly #headers = new Map<string, Readonly<Record<string, string>>>();

  constructor(secretBox: SecretBox, capacity = DEFAULT_CAPACITY) {
    this.#secretBox = secretBox;
    this.#capacity = capacity;
  }

  /**
   * The HMAC key of `sealed`, a secret of endpoint `endpointId`.
   * @throws Error when it does not open (tampered, sealed with another key, or for another endpoint).
   */
  keyOf(sealed: string, endpointId: string): KeyObject {
    // Keyed by endpoint too: a sealed text copied onto another endpoint's record must fail to
    // open there (the seal is bound to its endpoint), not be served from this cache.
    const cacheKey = `${endpointId} ${sealed}`;
    let key = this.#keys.get(cacheKey);
    if (key === undefined) {
      key = signingKeyObject(this.#secretBox.open(sealed, endpointId));
      if (this.#keys.size >= this.#capacity) this.#keys.delete(this.#keys.keys().next().value!);
      this.#keys.set(cacheKey, key);
    }
    return key;
  }

  /**
   * The custom headers of endpoint `endpointId`, opened.
   * @throws UnsealError when they do not open (as a signing secret that does not: the send is put off).
   */
  headersOf(endpointId: string, headers: EndpointHeaders): Readonly<Record<string, string>> {
    const cacheKey = `${endpointId} ${headers.sealed}`;
    let opened = this.#headers.get(cacheKey);
    if (opened === undefined) {
      opened = Object.freeze(openEndpointHeaders(this.#secretBox, endpointId, headers));
      if (this.#headers.size >= this.#capacity) this.#headers.delete(this.#headers.keys().next().value!);
      this.#headers.set(cacheKey, opened);
    }
    return opened;
  }
}
