import type { Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import type { MessageDoc } from './documents.ts';
import { MESSAGES_PLANS as P } from './plans/messages.ts';

// A message's payload lives in `message_bodies`, apart from the `messages` document that every
// completion rewrites (documents.ts). Written once, with the message, in its transaction, to
// the message's month: found there by the message's id.

/**
 * The payload of `message`: from its body, or from the message itself when written before bodies.
 * @throws Error when the message has no body in its month.
 */
export async function payloadOf(conn: MongoConnection, t: Tenant, message: Pick<MessageDoc, '_id' | 'payload'>, session?: ClientSession): Promise<string> {
  if (message.payload !== undefined) return message.payload;
  const q = P.body(t, message._id);
  const body = await conn.bucketOf(message._id).messageBodies.findOne(q.filter, { ...q.options, session, projection: { payload: 1 } });
  if (body === null) throw new Error(`message ${message._id} lost its body`);
  return body.payload;
}
