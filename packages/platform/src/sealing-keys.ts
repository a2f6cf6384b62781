import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { SecretBox, UnsealError, type Clock } from '@wirehook/core';
import { SEALED_COLUMNS, type SealedColumn, type SealingRepo } from '@wirehook/store';
import type { ReadinessCheck } from './readiness.ts';

/**
 * A problem an operator must fix before the service can run (a wrong key, a missing
 * variable): `runService` prints its message as one line and exits 1, without a stack.
 */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** Where the key ring comes from (the config variables it is read from). */
export interface KeySource {
  WIREHOOK_SECRET_KEY?: string | undefined;
  WIREHOOK_SECRET_KEY_FILE?: string | undefined;
  DATA_DIR: string;
}

/** A loaded key ring and where it came from, for messages (never the key itself). */
export interface LoadedKeys {
  box: SecretBox;
  /** `WIREHOOK_SECRET_KEY` or `the key file /path`. */
  source: string;
  /** Something the operator should change (a key file inside DATA_DIR), or undefined. */
  warning?: string;
}

/** The key file used when neither WIREHOOK_SECRET_KEY nor WIREHOOK_SECRET_KEY_FILE is set: outside DATA_DIR. */
export function defaultKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  const config = env['XDG_CONFIG_HOME'] || join(env['HOME'] || homedir(), '.config');
  return join(config, 'wirehook', 'secret.key');
}

/**
 * The ring that seals signing secrets. WIREHOOK_SECRET_KEY wins (cluster deployments: the
 * same value in every process); else the key file, WIREHOOK_SECRET_KEY_FILE or
 * `~/.config/wirehook/secret.key`, made on first use with owner-only permissions. The file is
 * kept apart from DATA_DIR by default, so a copy of the data directory (a backup, a support
 * bundle) does not carry the key that opens it. A key file left in DATA_DIR by an earlier
 * version is still used, with a warning saying how to move it.
 * @throws StartupError naming the variable or file when the ring does not parse.
 */
export function loadSealingKeys(config: KeySource, env: NodeJS.ProcessEnv = process.env, options: { create?: boolean } = {}): LoadedKeys {
  if (config.WIREHOOK_SECRET_KEY) return { box: parseRing(config.WIREHOOK_SECRET_KEY, 'WIREHOOK_SECRET_KEY'), source: 'WIREHOOK_SECRET_KEY' };
  const legacy = join(resolve(config.DATA_DIR), 'secret.key');
  if (!config.WIREHOOK_SECRET_KEY_FILE && existsSync(legacy)) {
    return {
      box: parseRing(readFileSync(legacy, 'utf8'), `the key file ${legacy}`),
      source: `the key file ${legacy}`,
      warning:
        `the secret key file ${legacy} sits in DATA_DIR beside the database it opens: a copy of the data directory ` +
        `carries its key. Move it (mv ${legacy} ${defaultKeyFile(env)}) or point WIREHOOK_SECRET_KEY_FILE at it elsewhere`,
    };
  }
  const file = resolve(config.WIREHOOK_SECRET_KEY_FILE || defaultKeyFile(env));
  if (!existsSync(file)) {
    // A caller that works on secrets already sealed (admin's `secrets reseal`) needs the ring that sealed them: a new one opens nothing.
    if (options.create === false) {
      throw new StartupError(`no key ring: ${file} does not exist; set WIREHOOK_SECRET_KEY or WIREHOOK_SECRET_KEY_FILE to the ring this store was sealed with`);
    }
    try {
      createKeyFile(file);
    } catch (err) {
      throw new StartupError(
        `cannot make the key file ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): ` +
          'set WIREHOOK_SECRET_KEY, or WIREHOOK_SECRET_KEY_FILE to a writable place',
      );
    }
  }
  return { box: parseRing(readFileSync(file, 'utf8'), `the key file ${file}`), source: `the key file ${file}` };
}

function parseRing(text: string, source: string): SecretBox {
  try {
    return SecretBox.fromBase64(text);
  } catch (err) {
    throw new StartupError(`${source}: ${(err as Error).message}`);
  }
}

/** Writes a new key to `file` atomically (a link cannot replace a file another process made meanwhile). */
function createKeyFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const draft = `${file}.${process.pid}.new`;
  writeFileSync(draft, `${SecretBox.generateKey()}\n`, { mode: 0o600 });
  chmodSync(draft, 0o600);
  try {
    linkSync(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(draft);
  }
}

/**
 * A service's key ring, checked against its store before it starts work: loaded (a warning
 * logged when the key file sits in DATA_DIR), verified, and its readiness check added.
 * @throws StartupError when the ring does not parse or does not open the store's secrets.
 */
export async function openSealingKeys(
  config: KeySource,
  store: { sealing: SealingRepo },
  ctx: { clock: Clock; logger: { warn(message: string): void }; readiness: ReadinessCheck[] },
): Promise<LoadedKeys> {
  const keys = loadSealingKeys(config);
  if (keys.warning) ctx.logger.warn(keys.warning);
  await verifySealingKeys(store.sealing, keys, ctx.clock);
  ctx.readiness.push(sealingKeyCheck(store.sealing, keys, ctx.clock));
  return keys;
}

/** The known text each key's check value seals, bound to the key's id. */
const CHECK_TEXT = 'wirehook sealing key check';
const checkBinding = (keyId: string) => `key-check:${keyId}`;

/**
 * Checks the ring against the store: every key that has sealed secrets there (its check
 * value) must be in the ring and open its check value, so a wrong WIREHOOK_SECRET_KEY is
 * found at start instead of by every send failing. A store without check values (made
 * before them) is checked against one of its sealed secrets instead. Then the sealing key's
 * own check value is added when missing.
 * @throws StartupError naming `source` and the key ids, never the keys.
 */
export async function verifySealingKeys(sealing: SealingRepo, keys: LoadedKeys, clock: Clock): Promise<void> {
  const { box, source } = keys;
  const checks = await sealing.keyChecks();
  for (const check of checks) {
    try {
      box.open(check.sealed, checkBinding(check.keyId));
    } catch (err) {
      if (!(err instanceof UnsealError)) throw err;
      throw new StartupError(
        box.keyIds.includes(check.keyId)
          ? `${source} has a key named ${check.keyId}, but it is not the key of that name that sealed this store's signing secrets`
          : `${source} does not open this store's signing secrets: they were sealed with key ${check.keyId}, and the ring holds ${box.keyIds.join(', ')}. ` +
              'Set the key they were sealed with (or add it to the ring as ID:BASE64; see docs/operations.md)',
      );
    }
  }
  if (checks.length === 0) await verifyAgainstASecret(sealing, keys);
  if (!checks.some((c) => c.keyId === box.sealingKeyId)) {
    await sealing.addKeyCheck({ keyId: box.sealingKeyId, sealed: box.seal(CHECK_TEXT, checkBinding(box.sealingKeyId)), createdAt: clock.now() });
  }
}

async function verifyAgainstASecret(sealing: SealingRepo, { box, source }: LoadedKeys): Promise<void> {
  const [first] = await sealing.sealedSecrets('endpoint_secrets', null, 1);
  const sealed = first?.sealed[0];
  if (first === undefined || sealed === undefined) return;
  try {
    box.open(sealed, first.ownerId);
  } catch (err) {
    if (!(err instanceof UnsealError)) throw err;
    throw new StartupError(
      `${source} does not open this store's signing secrets (endpoint ${first.ownerId}'s does not open): set the key they were sealed with`,
    );
  }
}

/** The ring still opens what the store holds: a re-seal elsewhere may have moved on to a key this process lacks. */
export function sealingKeyCheck(sealing: SealingRepo, keys: LoadedKeys, clock: Clock): ReadinessCheck {
  return { name: 'secret_key', gates: true, probe: () => verifySealingKeys(sealing, keys, clock) };
}

/** What `secrets reseal` did. */
export interface ResealReport {
  keyId: string;
  /** Owners walked per sealed column (endpoints, alert targets, …). */
  walked: Record<SealedColumn, number>;
  resealed: number;
  /** Sealed texts that changed meanwhile (a rotation): they were sealed by a current process. */
  skipped: number;
  /** Check values removed: no secret is sealed with those keys any more. */
  retiredKeys: string[];
  /** Keys some secret is still sealed with (sealed by a process with an older ring while this ran). */
  keptKeys: string[];
}

const RESEAL_PAGE = 200;
const COLUMNS = Object.keys(SEALED_COLUMNS) as SealedColumn[];

/**
 * Re-seals every sealed secret of the store — every column of SEALED_COLUMNS: endpoints'
 * and alert targets' signing secrets — with the ring's newest key, then removes the check
 * values of the keys nothing uses any more, so they can leave the ring. Safe while the
 * services run: each secret is replaced only if it still reads as it did, and a second walk
 * finds what processes with an older ring sealed meanwhile (docs/operations.md).
 * @throws StartupError when a stored secret does not open with the ring (nothing after it is re-sealed, no key retired).
 */
export async function resealAll(sealing: SealingRepo, keys: LoadedKeys, clock: Clock): Promise<ResealReport> {
  await verifySealingKeys(sealing, keys, clock);
  const { box } = keys;
  const walked = Object.fromEntries(COLUMNS.map((c) => [c, 0])) as Record<SealedColumn, number>;
  const report: ResealReport = { keyId: box.sealingKeyId, walked, resealed: 0, skipped: 0, retiredKeys: [], keptKeys: [] };
  for (const column of COLUMNS) {
    for await (const { ownerId, sealed } of walk(sealing, column)) {
      walked[column] += 1;
      for (const text of sealed) {
        if (SecretBox.keyIdOf(text) === box.sealingKeyId) continue;
        let plain: string;
        try {
          plain = box.open(text, ownerId);
        } catch (err) {
          throw new StartupError(
            `${SEALED_COLUMNS[column].boundTo} ${ownerId} has a signing secret the ring does not open (${(err as Error).message}); ` +
              'nothing after it was re-sealed',
          );
        }
        if (await sealing.reseal(column, ownerId, text, box.seal(plain, ownerId))) report.resealed += 1;
        else report.skipped += 1;
      }
    }
  }
  // Second walk: which keys still seal something (a process with an older ring, meanwhile).
  const stillUsed = new Set<string>();
  for (const column of COLUMNS) {
    for await (const { sealed } of walk(sealing, column)) for (const text of sealed) stillUsed.add(SecretBox.keyIdOf(text) ?? 'unnamed');
  }
  for (const check of await sealing.keyChecks()) {
    if (check.keyId === box.sealingKeyId) continue;
    if (stillUsed.has(check.keyId) || stillUsed.has('unnamed')) report.keptKeys.push(check.keyId);
    else {
      await sealing.removeKeyCheck(check.keyId);
      report.retiredKeys.push(check.keyId);
    }
  }
  return report;
}

/** Every owner of a sealed column, page by page. */
async function* walk(sealing: SealingRepo, column: SealedColumn): AsyncGenerator<{ ownerId: string; sealed: string[] }> {
  for (let after: string | null = null; ; ) {
    const page = await sealing.sealedSecrets(column, after, RESEAL_PAGE);
    if (page.length === 0) return;
    yield* page;
    after = page.at(-1)!.ownerId;
  }
}
