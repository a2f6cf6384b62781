import type { SQLInputValue } from 'node:sqlite';
import type { Tenant } from '@wirehook/core';
import { firstIdAt } from '@wirehook/core/without-schemas';
import { SINCE_ID_MARGIN_MS, type MessageQuery } from '../ports/message-port.ts';

// The message list's SQL. Filters are appended in a fixed order, so each combination gives
// one SQL text (and so one cached statement). The payload is never read or searched.

const SELECT = `
  SELECT m.id, m.consumer_id, m.event_type, m.idempotency_key, m.ordering_key, m.created_at, m.status,
         c.external_id AS consumer_external_id, c.name AS consumer_name,
         (SELECT d.url FROM deliveries d WHERE d.message_id = m.id ORDER BY d.id LIMIT 1) AS endpoint_url,
         (SELECT coalesce(sum(d.attempt_count), 0) FROM deliveries d WHERE d.message_id = m.id) AS attempt_count,
         (SELECT max(a.at) FROM deliveries d JOIN attempts a ON a.delivery_id = d.id
          WHERE d.message_id = m.id) AS last_attempt_at
  FROM messages m
  JOIN consumers c ON c.org_id = m.org_id AND c.env = m.env AND c.id = m.consumer_id
  WHERE m.org_id = ? AND m.env = ?`;

const Q_FIELDS = ['m.id', 'm.event_type', 'c.external_id', 'm.idempotency_key'];

/** The SQL text and parameters of one page of the tenant's message list, newest first. */
export function messageListQuery(t: Tenant, query: MessageQuery): { sql: string; params: SQLInputValue[] } {
  // A negative LIMIT means "no limit" to SQLite; never let one through.
  if (!Number.isInteger(query.limit) || query.limit < 0) {
    throw new RangeError(`page limit must be a non-negative integer, got ${query.limit}`);
  }
  let sql = SELECT;
  const params: SQLInputValue[] = [t.orgId, t.env];
  const where = (clause: string, ...values: SQLInputValue[]) => {
    sql += ` AND ${clause}`;
    params.push(...values);
  };
  if (query.consumerId !== undefined) where('m.consumer_id = ?', query.consumerId);
  if (query.status !== undefined) where('m.status = ?', query.status);
  if (query.eventType !== undefined) where('m.event_type = ?', query.eventType);
  if (query.since !== undefined) {
    // Also as a bound on the id (ids are stamped with their creation time): the status and
    // event-type indexes end in the id, so a filtered search reads only the window's entries,
    // not every failed message there is before finding the window holds none.
    where('m.id >= ?', firstIdAt('message', query.since - SINCE_ID_MARGIN_MS));
    where('m.created_at >= ?', query.since);
  }
  if (query.afterId !== undefined) where('m.id < ?', query.afterId);
  if (query.q !== undefined && query.q !== '') {
    const pattern = `%${escapeLike(query.q)}%`;
    where(`(${Q_FIELDS.map((field) => `${field} LIKE ? ESCAPE '\\'`).join(' OR ')})`, ...Q_FIELDS.map(() => pattern));
  }
  sql += ' ORDER BY m.id DESC LIMIT ?';
  params.push(query.limit);
  return { sql, params };
}

/** `text` with LIKE's wildcards (and the escape character itself) escaped by a backslash. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
