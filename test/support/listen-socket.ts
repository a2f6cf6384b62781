// A raw `wirehook listen` connection for tests that decide when the CLI answers: the WebSocket
// the CLI opens (GET /v1/listen), its frames as they come, and the code it was closed with.
import { type ApiClient, eventually } from '@wirehook/testkit';
import { expect } from 'vitest';

/** A frame Wirehook sends a listener (`hello`, `request`, …). */
export interface ListenFrame {
  type: string;
  id?: string;
  endpoint?: { id: string };
}

export interface ListenSocket {
  ws: WebSocket;
  frames: ListenFrame[];
  /** The close code, when the connection ends. */
  closed: Promise<number>;
}

/** GET /v1/listen as the CLI opens it: resolves with the socket once its first frame comes, or rejects when refused. */
export function listenSocket(wirehook: { url: string }, key: string, forwardTo = 'http://localhost:9/hook', consumer?: string): Promise<ListenSocket> {
  // Node's WebSocket (undici) takes request headers; the DOM's type of it knows only protocols.
  const init = { headers: { authorization: `Bearer ${key}` } } as unknown as string[];
  const query = new URLSearchParams({ forward_to: forwardTo, ...(consumer === undefined ? {} : { consumer }) });
  const ws = new WebSocket(`${wirehook.url.replace(/^http/, 'ws')}/v1/listen?${query}`, init);
  const frames: ListenFrame[] = [];
  const closed = new Promise<number>((resolve) => ws.addEventListener('close', (e) => resolve(e.code), { once: true }));
  return new Promise((resolve, reject) => {
    ws.addEventListener('message', (m) => {
      frames.push(JSON.parse(String(m.data)) as ListenFrame);
      if (frames.length === 1) resolve({ ws, frames, closed });
    });
    ws.addEventListener('error', () => reject(new Error('refused')), { once: true });
  });
}

/** The `response` frame the CLI sends once its local server has answered webhook `id`. */
export function answerFrame(id: string, status = 200, body = 'thanks'): string {
  return JSON.stringify({ type: 'response', id, status, headers: {}, body, duration_ms: 3 });
}

/** The first webhook (`request` frame) a listener was sent, once it has come. */
export function firstRequest(frames: ListenFrame[]): Promise<ListenFrame & { id: string }> {
  return eventually(() => {
    const found = frames.find((f) => f.type === 'request');
    expect(found?.id).toBeDefined();
    return found as ListenFrame & { id: string };
  });
}

/**
 * A listener (consumer `wirehook-listen`) holding one webhook it has not answered, and beside it a
 * quiet listener of another consumer (`quiet`) with nothing waiting: what a stop meets.
 */
export async function heldAndQuietListeners(wirehook: { url: string }, tenant: { key: string; api: ApiClient }) {
  const held = await listenSocket(wirehook, tenant.key);
  await tenant.api.post('/v1/consumers', { external_id: 'quiet', name: 'Quiet' });
  const quiet = await listenSocket(wirehook, tenant.key, 'http://localhost:9/quiet', 'quiet');
  const sent = await tenant.api.post('/v1/messages', { consumer: 'wirehook-listen', event_type: 'order.created', payload: { n: 1 } });
  expect(sent.status).toBe(202);
  return { held, quiet, messageId: String(sent.body.id), request: await firstRequest(held.frames) };
}
