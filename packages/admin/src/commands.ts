import { parseArgs } from 'node:util';
import {
  emailAddress,
  ENVIRONMENTS,
  hashApiKey,
  InvalidError,
  isId,
  newApiKey,
  newId,
  NotFoundError,
  PLAN_NAMES,
  SCOPES,
  type Clock,
  type Environment,
  type PlanName,
  type Scope,
} from '@wirehook/core';
import { resealAll, type LoadedKeys } from '@wirehook/platform';
import type { Store } from '@wirehook/store';

/** What an admin command prints: one JSON document. */
export type AdminOutput = Record<string, unknown>;

export const USAGE = `usage: admin <command>
  org create --name NAME [--plan free|starter|pro|business] [--owner-email ADDR]
  org set-plan --org ORG_ID --plan PLAN
  key create --org ORG_ID --env live|test [--scopes a,b,…] [--expires-in-days N]
  key revoke --id KEY_ID
  secrets reseal            (re-seals every sealed secret — endpoints' and alert targets' — with the newest key of WIREHOOK_SECRET_KEY)`;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Runs one admin command against the store.
 * @throws InvalidError for bad arguments, NotFoundError for unknown orgs and keys.
 */
export async function runAdminCommand(
  argv: string[],
  deps: {
    store: Store;
    clock: Clock;
    /** The key ring (loaded only by the commands that need it: loading may make a key file). */
    keys?: () => LoadedKeys;
  },
): Promise<AdminOutput> {
  const { store, clock } = deps;
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      'owner-email': { type: 'string' },
      org: { type: 'string' },
      env: { type: 'string' },
      scopes: { type: 'string' },
      'expires-in-days': { type: 'string' },
      id: { type: 'string' },
    },
  });
  const command = positionals.join(' ');

  switch (command) {
    case 'org create': {
      const name = required(values.name, '--name');
      const plan = oneOf(values.plan ?? 'free', PLAN_NAMES, '--plan');
      const org = await store.orgs.create({
        id: newId('org', clock),
        name,
        plan,
        ownerEmail: ownerEmail(values['owner-email']),
        createdAt: clock.now(),
      });
      return { id: org.id, name: org.name, plan: org.plan };
    }
    case 'org set-plan': {
      const orgId = required(values.org, '--org');
      const plan = oneOf(required(values.plan, '--plan'), PLAN_NAMES, '--plan');
      const org = isId('org', orgId) ? await store.orgs.setPlan(orgId, plan) : null;
      if (!org) throw new NotFoundError(`org ${orgId} not found`);
      return { id: org.id, name: org.name, plan: org.plan };
    }
    case 'key create': {
      const orgId = required(values.org, '--org');
      const env: Environment = oneOf(required(values.env, '--env'), ENVIRONMENTS, '--env');
      const scopes = values.scopes === undefined ? [...SCOPES] : parseScopes(values.scopes);
      const org = isId('org', orgId) ? await store.orgs.get(orgId) : null;
      if (!org) throw new NotFoundError(`org ${orgId} not found`);
      const now = clock.now();
      const days = values['expires-in-days'];
      const expiresAt = days === undefined ? null : now + Math.round(expiryDays(days) * DAY_MS);
      const key = newApiKey(env);
      const record = await store.apiKeys.create(
        { id: newId('key', clock), orgId: org.id, env, scopes, createdAt: now, revokedAt: null, expiresAt },
        hashApiKey(key),
      );
      const out: AdminOutput = { id: record.id, key, env: record.env, scopes: record.scopes };
      if (expiresAt !== null) out['expires_at'] = expiresAt;
      return out;
    }
    case 'key revoke': {
      const id = required(values.id, '--id');
      const key = isId('key', id) ? await store.apiKeys.revoke(id, clock.now()) : null;
      if (!key) throw new NotFoundError(`key ${id} not found`);
      return { id: key.id, revoked_at: key.revokedAt };
    }
    case 'secrets reseal': {
      if (!deps.keys) throw new InvalidError('secrets reseal needs the key ring (WIREHOOK_SECRET_KEY)');
      const report = await resealAll(store.sealing, deps.keys(), clock);
      return {
        key_id: report.keyId,
        endpoints: report.walked.endpoint_secrets,
        endpoint_headers: report.walked.endpoint_headers,
        endpoint_tls_keys: report.walked.endpoint_tls_keys,
        endpoint_auth_secrets: report.walked.endpoint_auth_secrets,
        alert_targets: report.walked.alert_target_secrets,
        resealed: report.resealed,
        skipped: report.skipped,
        retired_keys: report.retiredKeys,
        kept_keys: report.keptKeys,
      };
    }
    default:
      throw new InvalidError(command ? `unknown command "${command}"\n${USAGE}` : USAGE);
  }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new InvalidError(`${flag} is required\n${USAGE}`);
  return value;
}

function oneOf<const T extends readonly string[]>(value: string, allowed: T, flag: string): T[number] {
  if (!allowed.includes(value)) throw new InvalidError(`${flag} must be one of ${allowed.join(', ')}`);
  return value as T[number];
}

function parseScopes(list: string): Scope[] {
  const scopes = [
    ...new Set(
      list
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (scopes.length === 0) throw new InvalidError('--scopes must name at least one scope');
  return scopes.map((s) => oneOf(s, SCOPES, '--scopes'));
}

/** Longest `--expires-in-days`: a century (past it, a key that should never expire is one without the flag). */
export const MAX_KEY_EXPIRY_DAYS = 36_500;

/** `--expires-in-days`: days (fractions taken) that make at least a millisecond and at most MAX_KEY_EXPIRY_DAYS. */
function expiryDays(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n * DAY_MS < 1 || n > MAX_KEY_EXPIRY_DAYS) {
    throw new InvalidError(`--expires-in-days must be a number of days, at least a millisecond's worth and at most ${MAX_KEY_EXPIRY_DAYS}`);
  }
  return n;
}

/** An owner's e-mail address, where usage e-mails go: one address (as an alert target's), no line breaks to inject a header with. */
function ownerEmail(value: string | undefined): string | null {
  if (value === undefined) return null;
  const parsed = emailAddress.safeParse(value);
  if (!parsed.success) throw new InvalidError(`--owner-email must be one e-mail address, not ${JSON.stringify(value.slice(0, 100))}`);
  return parsed.data;
}

export type { PlanName };
