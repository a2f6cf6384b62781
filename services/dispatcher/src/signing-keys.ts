import type { KeyObject } from 'node:crypto';
import {
  type EndpointAuth,
  type EndpointHeaders,
  type EndpointTls,
  endpointTlsId,
  type OAuthClientCredentials,
  openEndpointHeaders,
  signingKeyObject,
  type SecretBox,
} from '@wirehook/core';
import type { ClientTls } from '@wirehook/egress';
import { remember } from './recent-map.ts';

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
  /** Endpoints' mutual TLS, the key opened, by endpoint (with the sealed key it came from). */
  readonly #tls = new Map<string, Opened<ClientTls>>();
  /** Endpoints' custom headers, opened, by endpoint (with the sealed text they were opened from). */
  readonly #headers = new Map<string, Opened<Readonly<Record<string, string>>>>();
  /** Endpoints' OAuth client secrets, opened, by endpoint (with the sealed secret they came from). */
  readonly #credentials = new Map<string, Opened<OAuthClientCredentials>>();

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
    // By endpoint (a sealed set is up to ~5.5 KB: as a key, 10,000 of them would hold ~100 MB); a new set replaces it.
    const known = this.#headers.get(endpointId);
    if (known !== undefined && known.sealed === headers.sealed) return known.opened;
    const opened = Object.freeze(openEndpointHeaders(this.#secretBox, endpointId, headers));
    remember(this.#headers, endpointId, { sealed: headers.sealed, opened }, this.#capacity);
    return opened;
  }

  /**
   * Endpoint `endpointId`'s mutual TLS as a send uses it: its key opened and the set-up's id
   * (a hash of the certificates and sealed key), both made once per sealed key, not per send.
   * @throws UnsealError when the key does not open (the send is put off, as for a signing secret).
   */
  clientTlsOf(endpointId: string, tls: EndpointTls): ClientTls {
    const known = this.#tls.get(endpointId);
    if (known !== undefined && known.sealed === tls.sealedKey) return known.opened;
    const opened = { id: endpointTlsId(tls), cert: tls.certificate, key: this.#secretBox.open(tls.sealedKey, endpointId), ca: tls.serverCa };
    remember(this.#tls, endpointId, { sealed: tls.sealedKey, opened }, this.#capacity);
    return opened;
  }

  /**
   * Endpoint `endpointId`'s OAuth client credentials with the secret opened, once per sealed secret.
   * @throws UnsealError when the secret does not open (the send is put off, as for a signing secret).
   */
  credentialsOf(endpointId: string, auth: EndpointAuth): OAuthClientCredentials {
    const known = this.#credentials.get(endpointId);
    // The rest of the credentials can change with the same secret (a PATCH keeping it): compared too.
    if (known !== undefined && known.sealed === auth.sealedSecret && sameCredentials(known.opened, auth)) return known.opened;
    const { tokenUrl, clientId, scope, audience, tokenAuthMethod } = auth;
    const opened = { tokenUrl, clientId, clientSecret: this.#secretBox.open(auth.sealedSecret, endpointId), scope, audience, tokenAuthMethod };
    remember(this.#credentials, endpointId, { sealed: auth.sealedSecret, opened }, this.#capacity);
    return opened;
  }
}

function sameCredentials(a: OAuthClientCredentials, b: EndpointAuth): boolean {
  return a.tokenUrl === b.tokenUrl && a.clientId === b.clientId && a.scope === b.scope && a.audience === b.audience && a.tokenAuthMethod === b.tokenAuthMethod;
}

/** Something opened, with the sealed text it came from (a changed text is opened again). */
interface Opened<T> {
  sealed: string;
  opened: T;
}
