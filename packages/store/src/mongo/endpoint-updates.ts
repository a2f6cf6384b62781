import type { StoredSecret } from '@wirehook/core';
import type { Document } from 'mongodb';
import type { EndpointPatch } from '../ports/endpoint-port.ts';
import type { EndpointDoc } from './documents.ts';
import { endpointHeadersDoc } from './mappers.ts';

type PatchableFields = Partial<Omit<EndpointDoc, '_id' | 'orgId' | 'env' | 'secrets' | 'consumerId' | 'createdAt'>>;

/** The `$set` of a patch: the fields it gives (null included); undefined fields are left alone. */
export function endpointPatchSet(patch: EndpointPatch): PatchableFields {
  const set: PatchableFields = {};
  if (patch.url !== undefined) set.url = patch.url;
  if (patch.eventTypes !== undefined) set.eventTypes = patch.eventTypes;
  if (patch.status !== undefined) set.status = patch.status;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.retry !== undefined) set.retry = patch.retry;
  if (patch.compatSignature !== undefined) set.compatSignature = patch.compatSignature;
  if (patch.ordering !== undefined) set.ordering = patch.ordering;
  if (patch.rateLimit !== undefined) set.rateLimit = patch.rateLimit;
  if (patch.headers !== undefined) set.headers = patch.headers && endpointHeadersDoc(patch.headers);
  if (patch.tls !== undefined) set.tls = patch.tls;
  if (patch.auth !== undefined) set.auth = patch.auth;
  if (patch.transformation !== undefined) set.transformation = patch.transformation;
  if (patch.fixedIp !== undefined) set.fixedIp = patch.fixedIp;
  if (patch.disabledReason !== undefined) set.disabledReason = patch.disabledReason;
  if (patch.failingSince !== undefined) set.failingSince = patch.failingSince;
  return set;
}

/**
 * The pipeline update of a rotation, one atomic write of the endpoint document: secrets
 * expired at `now` are dropped (they can never sign or verify again, and dropping them
 * keeps the array from growing with every rotation), every other one expires at
 * `oldValidUntil` unless it expires sooner, and `secret` is appended as the newest.
 * Constants are wrapped in $literal so no stored text is ever read as an expression.
 */
export function rotateSecretsUpdate(secret: StoredSecret, now: number, oldValidUntil: number, maxLive: number): Document[] {
  const stillValid = {
    $or: [{ $eq: [{ $ifNull: ['$$s.expiresAt', null] }, null] }, { $gt: ['$$s.expiresAt', { $literal: now }] }],
  };
  const limited = {
    sealed: '$$s.sealed',
    createdAt: '$$s.createdAt',
    // $min skips nulls: a secret without an end gets oldValidUntil, a sooner end is kept.
    expiresAt: { $min: ['$$s.expiresAt', { $literal: oldValidUntil }] },
  };
  const valid = { $filter: { input: '$secrets', as: 's', cond: stillValid } };
  // The array is oldest first: the newest maxLive - 1 stay beside the new one, older ones go.
  const newest = maxLive > 1 ? { $slice: [valid, -(maxLive - 1)] } : { $literal: [] };
  const kept = { $map: { input: newest, as: 's', in: limited } };
  const added = { $literal: [{ sealed: secret.sealed, createdAt: secret.createdAt, expiresAt: secret.expiresAt }] };
  return [{ $set: { secrets: { $concatArrays: [kept, added] } } }];
}
