import { appendFileSync, closeSync, fstatSync, openSync } from 'node:fs';
import type { KeyWithOrg } from '../ports/api-key-port.ts';

// Every API request looks its key up (apiKeyAuth), and on the threaded store that is a round
// trip to the reader thread: a post that wakes it, a read transaction whose page cache the
// writer's last commit emptied, and an answer that waits for the caller's next turn. Keys
// and their orgs change rarely, and a revocation must hold from the next request on — also
// one made by the admin CLI in another process. So answers are kept, each tagged with the
// *auth epoch* read before it was looked up, and served only while the epoch is unchanged.
//
// The epoch is the length of a file beside the database (`<db>-auth-epoch`): every change
// to what a lookup returns (a key revoked, an org's plan set) appends a byte to it once its
// commit is done, in whichever process made it. Reading it is one fstat; a file's length
// only grows and changes atomically, so no lock is needed and no two epochs are confused.
// A lookup that raced a change was tagged with the epoch before it: the next request sees
// the new epoch and looks the key up again.

/** What a change to keys or orgs moves, and what a cached lookup is checked against. */
export interface AuthEpoch {
  /** The current epoch; @throws when it cannot be read (the cache then stands aside). */
  read(): number;
  /** Moves the epoch on: call once a change to a key or an org has committed. */
  bump(): void;
  close(): void;
}

/** The epoch of a database file, shared by every process that opens it (see above). */
export function fileAuthEpoch(databasePath: string): AuthEpoch {
  // 'a': created when missing (owner-only, as the database), every write an append.
  const fd = openSync(`${databasePath}-auth-epoch`, 'a', 0o600);
  let open = true;
  return {
    read: () => fstatSync(fd).size,
    bump: () => appendFileSync(fd, '.'),
    close: () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

/** The epoch of a private in-memory database: no other process can change it. */
export function memoryAuthEpoch(): AuthEpoch {
  let epoch = 0;
  return { read: () => epoch, bump: () => void epoch++, close: () => {} };
}

/** How many keys are kept at once; past it the oldest kept goes. */
export const KEY_CACHE_SIZE = 10_000;

/**
 * Lookups of keys by hash, kept while the auth epoch stands still. Unknown keys are not kept
 * (a caller trying random keys costs what it did before). What is kept is frozen: every
 * request shares it. When the epoch cannot be read or moved, it stands aside for good and
 * every lookup in this process goes to the store (as before it existed).
 */
export class KeyCache {
  readonly #epoch: AuthEpoch;
  readonly #lookup: (hash: string) => Promise<KeyWithOrg | null>;
  readonly #kept = new Map<string, { epoch: number; found: KeyWithOrg }>();
  readonly #size: number;
  #broken = false;

  constructor(epoch: AuthEpoch, lookup: (hash: string) => Promise<KeyWithOrg | null>, size = KEY_CACHE_SIZE) {
    this.#epoch = epoch;
    this.#lookup = lookup;
    this.#size = size;
  }

  async findByHash(hash: string): Promise<KeyWithOrg | null> {
    const epoch = this.#readEpoch();
    if (epoch === null) return this.#lookup(hash);
    const kept = this.#kept.get(hash);
    if (kept !== undefined && kept.epoch === epoch) return kept.found;
    const found = await this.#lookup(hash);
    if (found === null) {
      this.#kept.delete(hash);
      return null;
    }
    const frozen = freeze(found);
    this.#kept.delete(hash); // re-inserted last: the oldest kept is the first to go
    if (this.#kept.size >= this.#size) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(hash, { epoch, found: frozen });
    return frozen;
  }

  /**
   * A key or an org changed and its commit is done: every kept lookup, in every process, is
   * out of date. @throws when the epoch could not be moved: the change is made, but the
   * caller must hear that other processes may not see it until they restart.
   */
  changed(): void {
    try {
      this.#epoch.bump();
    } catch (err) {
      this.#standAside(err);
      throw new Error(
        `the change is saved, but running Wirehook processes were not told of it (the auth epoch failed: ${(err as Error).message}); restart them`,
      );
    }
  }

  close(): void {
    this.#kept.clear();
    this.#epoch.close();
  }

  #readEpoch(): number | null {
    if (this.#broken) return null;
    try {
      return this.#epoch.read();
    } catch (err) {
      this.#standAside(err);
      return null;
    }
  }

  #standAside(err: unknown): void {
    this.#broken = true;
    this.#kept.clear();
    process.emitWarning(`API keys are looked up on every request from now on: the auth epoch failed (${(err as Error).message})`);
  }
}

function freeze({ key, org }: KeyWithOrg): KeyWithOrg {
  Object.freeze(key.scopes);
  return Object.freeze({ key: Object.freeze(key), org: Object.freeze(org) });
}
