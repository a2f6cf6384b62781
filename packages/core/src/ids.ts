import { randomFillSync, randomUUID } from 'node:crypto';
import { decodeTime, encodeTime, monotonicFactory } from 'ulid';
import type { Clock } from './clock.ts';

/** Every id prefix Wirehook issues, by kind. */
export const ID_PREFIX = {
  org: 'org_',
  key: 'key_',
  consumer: 'con_',
  endpoint: 'ep_',
  message: 'msg_',
  delivery: 'dlv_',
  attempt: 'att_',
  recovery: 'rcv_',
  alertTarget: 'atg_',
} as const;

export type IdKind = keyof typeof ID_PREFIX;
type Brand<K extends IdKind> = string & { readonly __id: K };

export type OrgId = Brand<'org'>;
export type KeyId = Brand<'key'>;
export type ConsumerId = Brand<'consumer'>;
export type EndpointId = Brand<'endpoint'>;
export type MessageId = Brand<'message'>;
export type DeliveryId = Brand<'delivery'>;
export type AttemptId = Brand<'attempt'>;
export type RecoveryId = Brand<'recovery'>;
export type AlertTargetId = Brand<'alertTarget'>;

export interface IdOf {
  org: OrgId;
  key: KeyId;
  consumer: ConsumerId;
  endpoint: EndpointId;
  message: MessageId;
  delivery: DeliveryId;
  attempt: AttemptId;
  recovery: RecoveryId;
  alertTarget: AlertTargetId;
}

// ULID: 48-bit millisecond time + 80 random bits, Crockford base32, sortable as text.
const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const ULID_TIME_MAX = 2 ** 48 - 1;
const nextUlid = clockTrueUlids();

/** A new time-ordered id of `kind`, stamped with the clock's time. */
export function newId<K extends IdKind>(kind: K, clock: Clock): IdOf[K] {
  return (ID_PREFIX[kind] + nextUlid(clock.now())) as IdOf[K];
}

/** A new alert notice's id (`ntc_` and 32 hex digits: random, not time-ordered). */
export function newNoticeId(): string {
  return `ntc_${randomUUID().replaceAll('-', '')}`;
}

/** True when `value` has the shape of an id of `kind`. */
export function isId<K extends IdKind>(kind: K, value: string): value is IdOf[K] {
  const prefix = ID_PREFIX[kind];
  return value.startsWith(prefix) && ULID_PATTERN.test(value.slice(prefix.length));
}

/**
 * The smallest id of `kind` stamped at `ms` or later: a lower bound on ids made from then on,
 * so a query by time can range over an index ordered by id instead of reading every row.
 */
export function firstIdAt<K extends IdKind>(kind: K, ms: number): IdOf[K] {
  // A ULID holds 48 bits of time: a bound past them (a `since` far in the future) is the last one.
  return (ID_PREFIX[kind] + encodeTime(Math.min(ULID_TIME_MAX, Math.max(0, Math.floor(ms))), 10) + '0'.repeat(16)) as IdOf[K];
}

/** Creation time (Unix ms) read back from an id of any kind, or undefined for a malformed id. */
export function idTime(id: string): number | undefined {
  const body = id.slice(id.indexOf('_') + 1);
  if (!ULID_PATTERN.test(body)) return undefined;
  try {
    return decodeTime(body);
  } catch {
    return undefined;
  }
}

/**
 * ULIDs that never carry a time ahead of the clock that made them. Within one millisecond
 * they are monotonic (the random part counts up), so a burst keeps its order. `ulid`'s own
 * monotonic factory also keeps its last time when the clock steps *back* (NTP, a restored VM,
 * a test moving its clock): every later id would carry that future time, and rules judged
 * by an id's time (retention, the month an id belongs to) would misjudge it — a message made
 * on the 30th read as next month's. Here a step back starts a fresh sequence at the clock's
 * time: ids made after it sort before the ones made just before it, which is the truth.
 */
function clockTrueUlids(): (now: number) => string {
  const random = pooledRandom();
  let last = -1;
  let next = monotonicFactory(random);
  return (now) => {
    if (now < last) next = monotonicFactory(random);
    last = now;
    return next(now);
  };
}

/**
 * A PRNG for `ulid` that reads from a pool of crypto-random bytes. ulid's default makes one
 * `getRandomValues` call per character (16 per id); this makes one per 4 KiB — the same
 * randomness, filled 256 ids at a time.
 */
function pooledRandom(): () => number {
  const pool = new Uint8Array(4096);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      randomFillSync(pool);
      next = 0;
    }
    return pool[next++]! / 256;
  };
}
