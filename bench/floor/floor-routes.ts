// The API of the one-process floors (bench/floor/floor-process.ts on one thread,
// bench/floor/threaded-floor-process.ts over embedded mode's threads): consumers, endpoints and
// keys live in memory (setup, not the measured path); a message is written by the floor's own
// `write` and its deliveries queued to be sent.
import { createSecretKey, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { webhookBody } from '@wirehook/core';
import { type Answer, type FloorDelivery, messageInput, notFound } from './floor-parts.ts';

/** An endpoint as the floors' API registers it. */
export interface FloorEndpoint {
  id: string;
  url: string;
  path: string;
  key: KeyObject;
  removed: boolean;
}

/** A floor's delivery: to one endpoint. */
export interface RoutedDelivery<E extends FloorEndpoint> extends FloorDelivery {
  endpoint: E;
}

/** What a floor does with what its API is asked. */
export interface FloorHooks<E extends FloorEndpoint> {
  /** The floor's endpoint made of the API's (adding what it keeps for sending). */
  endpoint(registered: FloorEndpoint): E;
  /** Writes the message and its deliveries, durably: the 202 waits for it. */
  write(message: { id: string; eventType: string; payloadJson: string; createdAt: number }, deliveries: RoutedDelivery<E>[]): Promise<void>;
  /**
   * False when the webhook's body is built where it is signed, on another thread (the
   * delivery-thread floor): the deliveries then carry an empty body, and each side builds it once.
   */
  buildsBody?: boolean;
  /** Queues a written delivery to be sent. */
  enqueue(delivery: RoutedDelivery<E>): void;
  /** An endpoint deleted (marked `removed` already: it takes no more deliveries, and those queued fail unsent when their turn comes). */
  removed(endpoint: E): void;
}

/** The floors' routes: POST /v1/consumers, /v1/endpoints, /v1/messages and DELETE /v1/endpoints/{id}. */
export function floorRoutes<E extends FloorEndpoint>(
  hooks: FloorHooks<E>,
): (req: IncomingMessage, keyHash: string, input: Record<string, unknown>) => Promise<Answer> | Answer {
  /** Key hashes, each with its consumers by external id: a key is registered by its first consumer. */
  const keys = new Map<string, Map<string, E[]>>();
  const consumersById = new Map<string, E[]>();
  const endpoints = new Map<string, E>();

  const createMessage = async (endpointsOf: Map<string, E[]>, input: Record<string, unknown>): Promise<Answer> => {
    const fields = messageInput(input);
    if (Array.isArray(fields)) return fields;
    const consumer = endpointsOf.get(fields.consumer);
    if (!consumer) return notFound('consumer');
    const id = `msg_${randomUUID()}`;
    const createdAt = Date.now();
    const body = hooks.buildsBody === false ? '' : webhookBody(fields.eventType, createdAt, fields.payloadJson);
    const deliveries = consumer.filter((e) => !e.removed).map((endpoint) => ({ id: randomUUID(), messageId: id, endpoint, body, attempts: 0 }));
    await hooks.write({ id, eventType: fields.eventType, payloadJson: fields.payloadJson, createdAt }, deliveries);
    for (const d of deliveries) hooks.enqueue(d);
    return [202, { id, deliveries: deliveries.length }];
  };

  return (req, keyHash, input) => {
    const path = req.url ?? '';
    if (req.method === 'POST' && path === '/v1/consumers') {
      const id = `con_${randomUUID()}`;
      const consumer: E[] = [];
      if (!keys.has(keyHash)) keys.set(keyHash, new Map());
      keys.get(keyHash)!.set(String(input['external_id']), consumer);
      consumersById.set(id, consumer);
      return [201, { id }];
    }
    const endpointsOf = keys.get(keyHash);
    if (endpointsOf === undefined) return [401, { error: { code: 'unauthorized', message: 'unknown key' } }];
    if (req.method === 'POST' && path === '/v1/messages') return createMessage(endpointsOf, input);
    if (req.method === 'POST' && path === '/v1/endpoints') {
      const consumer = consumersById.get(String(input['consumer_id']));
      if (!consumer) return notFound('consumer');
      const url = String(input['url']);
      const secret = randomBytes(24);
      const endpoint = hooks.endpoint({ id: `ep_${randomUUID()}`, url, path: new URL(url).pathname, key: createSecretKey(secret), removed: false });
      consumer.push(endpoint);
      endpoints.set(endpoint.id, endpoint);
      return [201, { id: endpoint.id, secret: `whsec_${secret.toString('base64')}` }];
    }
    const removed = req.method === 'DELETE' && /^\/v1\/endpoints\/([^/]+)$/.exec(path);
    if (removed) {
      const endpoint = endpoints.get(removed[1]!);
      if (!endpoint) return notFound('endpoint');
      endpoint.removed = true;
      hooks.removed(endpoint);
      return [204, undefined];
    }
    return notFound('route');
  };
}
