import type { SQLInputValue } from 'node:sqlite';
import type { EndpointPatch } from '../ports/endpoint-port.ts';
import { transformationColumns } from './mappers.ts';
import { toJsonOrNull } from './row.ts';

/**
 * The `column = value` pairs a patch sets, in a fixed order so each combination of fields
 * gives the same SQL text (and so one cached statement). Undefined fields are left alone.
 */
export function endpointPatchAssignments(patch: EndpointPatch): Array<[column: string, value: SQLInputValue]> {
  const sets: Array<[string, SQLInputValue]> = [];
  if (patch.url !== undefined) sets.push(['url', patch.url]);
  if (patch.eventTypes !== undefined) sets.push(['event_types', toJsonOrNull(patch.eventTypes)]);
  if (patch.status !== undefined) sets.push(['status', patch.status]);
  if (patch.description !== undefined) sets.push(['description', patch.description]);
  if (patch.retry !== undefined) sets.push(['retry', JSON.stringify(patch.retry)]);
  if (patch.compatSignature !== undefined) sets.push(['compat_signature', toJsonOrNull(patch.compatSignature)]);
  if (patch.ordering !== undefined) sets.push(['ordering', patch.ordering]);
  if (patch.rateLimit !== undefined) sets.push(['rate_limit', patch.rateLimit]);
  if (patch.headers !== undefined) sets.push(['headers', toJsonOrNull(patch.headers)]);
  if (patch.tls !== undefined) sets.push(['tls', toJsonOrNull(patch.tls)]);
  if (patch.auth !== undefined) sets.push(['auth', toJsonOrNull(patch.auth)]);
  if (patch.transformation !== undefined) {
    const [ref, code] = transformationColumns(patch.transformation);
    sets.push(['transformation_ref', ref], ['transformation_code', code]);
  }
  if (patch.fixedIp !== undefined) sets.push(['fixed_ip', patch.fixedIp ? 1 : 0]);
  if (patch.disabledReason !== undefined) sets.push(['disabled_reason', patch.disabledReason]);
  if (patch.failingSince !== undefined) sets.push(['failing_since', patch.failingSince]);
  return sets;
}
