// Queuing an alert event on MongoDB, without a server: a stand-in alert_events, and no
// usage_counters at all — an event is no longer numbered from an organization's counter
// document that every completion queuing one wrote (touching it here would throw).
import type { ClientSession } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { MongoConnection } from './connection.ts';
import { addAlertEvent } from './delivery-complete.ts';
import type { AttemptDoc } from './documents.ts';

const session = {} as ClientSession;
const t = { orgId: 'org_1', env: 'live' } as never;
const attempt = { at: 1_796_000_000_123, error: 'HTTP 503', responseStatus: 503, deliveryId: 'dlv_1' } as unknown as AttemptDoc;

function outbox(queued: boolean) {
  const inserted: Record<string, unknown>[] = [];
  const conn = {
    alertEvents: {
      findOne: async () => (queued ? { _id: 'org_1:ep_1:exhausted' } : null),
      insertOne: async (doc: Record<string, unknown>) => {
        inserted.push(doc);
        return {};
      },
    },
  } as unknown as MongoConnection;
  return { conn, inserted };
}

describe('an alert event queued (MongoDB)', () => {
  it('is stored under <org>:<endpoint>:<kind>, ordered by its attempt time, with no counter written', async () => {
    const { conn, inserted } = outbox(false);
    await addAlertEvent(conn, session, t, 'exhausted', 'ep_1' as never, attempt);
    expect(inserted).toEqual([
      expect.objectContaining({ _id: 'org_1:ep_1:exhausted', seq: 1_796_000_000_123, at: 1_796_000_000_123, kind: 'exhausted', endpointId: 'ep_1' }),
    ]);
  });

  it('is collapsed into the one of its endpoint and kind already queued', async () => {
    const { conn, inserted } = outbox(true);
    await addAlertEvent(conn, session, t, 'exhausted', 'ep_1' as never, attempt);
    expect(inserted).toEqual([]);
  });
});
