import type { CreatedMessage, NewMessage } from '../ports/message-port.ts';
import type { StoreCall } from './store-thread.ts';

// A message created through the threaded store comes back with its payload twice (the message,
// and each claimed job's message), the very text the caller sent: up to 1 MB copied back across
// the thread twice for nothing. The writer's thread leaves it out of a created message's answer
// and the caller's side puts its own text back. Not on an idempotent replay: that answer is the
// earlier message, whose payload may differ.

const isCreate = (call: { repo: string; method: string }) => call.repo === 'messages' && call.method === 'create';

/** The store thread's side: `value` without the payload the caller sent, when `call` created a message. */
export function withoutEchoedPayload(call: Exclude<StoreCall, { close: true }>, value: unknown): unknown {
  if (!isCreate(call) || !(value as CreatedMessage).created) return value;
  const created = value as CreatedMessage;
  created.message.payload = '';
  for (const job of created.claimed ?? []) job.message.payload = '';
  return created;
}

/** The caller's side: the payload it sent put back into what `withoutEchoedPayload` answered. */
export function withEchoedPayload(call: { repo: string; method: string; args: unknown[] }, value: unknown): unknown {
  if (!isCreate(call) || !(value as CreatedMessage).created) return value;
  const created = value as CreatedMessage;
  const { payload } = call.args[1] as NewMessage;
  created.message.payload = payload;
  for (const job of created.claimed ?? []) job.message.payload = payload;
  return created;
}
