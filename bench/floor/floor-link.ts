// The one way the floors' threads talk (bench/floor/floor-thread.ts, and the delivery-thread floor's
// two workers: bench/floor/threaded-floor-process.ts with FLOOR_DELIVERY_THREAD=1): calls answered by
// id, and items pushed without an answer, over a worker or a MessagePort. Both ways, a turn's items
// cross in one message, as every hand-off between Wirehook's threads does.
import type { MessagePort, Worker } from 'node:worker_threads';
import { turnOutbox } from '@wirehook/core';
import { endFloor, type FloorAttempt } from './floor-parts.ts';

/**
 * A committed delivery as the store thread hands it over. `to` (where it goes and its signing
 * secret) comes with an endpoint's first delivery only: the delivery thread keeps it. The webhook's
 * body is built on the delivery thread, where it is signed, from the message's fields.
 */
export interface FloorJob {
  id: string;
  messageId: string;
  endpointId: string;
  eventType: string;
  createdAt: number;
  payloadJson: string;
  to?: FloorTo;
}

/** Where an endpoint's deliveries go, and their signing secret. */
export interface FloorTo {
  url: string;
  path: string;
  secret: Uint8Array;
}

/** What the delivery thread asks the store thread to write. */
export type RecordCall = { op: 'record'; deliveryId: string; attempt: FloorAttempt } | { op: 'fail'; deliveryId: string; at: number };

/** What the main thread asks of the delivery thread: an endpoint's pool closed (the endpoint deleted). */
export interface CloseCall {
  op: 'close';
  endpointId: string;
}

/** What crosses the link: a pushed item (no answer), a call, or a call's answer. */
type Item<P, C, R> = { push: P } | { call: C; id: number } | { reply: R | undefined; id: number; error?: string };

/** Either end of a link: a Worker (its owner's side) or a MessagePort (parentPort, or a channel's end). */
export type LinkPort = MessagePort | Worker;

/**
 * One side of a link over `port`, named `name` in its errors: `push` hands an item over without
 * an answer, `call` waits for one; `serve` answers the other side's calls, `pushed` takes its
 * pushed items. PushOut, CallOut and ReplyOut are what this side sends; the In types what it gets.
 */
export class FloorLink<PushOut, CallOut, ReplyIn, PushIn = never, CallIn = never, ReplyOut = never> {
  readonly #send: (item: Item<PushOut, CallOut, ReplyOut>) => void;
  readonly #pending = new Map<number, { resolve: (value: ReplyIn) => void; reject: (err: Error) => void }>();
  #nextId = 0;

  constructor(port: LinkPort, name: string, handlers: { serve?: (call: CallIn) => Promise<ReplyOut>; pushed?: (item: PushIn) => void } = {}) {
    this.#send = turnOutbox<Item<PushOut, CallOut, ReplyOut>>((items) => port.postMessage(items));
    // What cannot be read would never be answered: the floor ends instead.
    port.on('messageerror', (err) => endFloor(`a message over ${name} could not be read: ${String(err)}`));
    port.on('message', (items: Item<PushIn, CallIn, ReplyIn>[]) => {
      for (const item of items) {
        if ('push' in item) handlers.pushed!(item.push);
        else if ('call' in item) {
          const { id } = item;
          handlers.serve!(item.call).then(
            (reply) => this.#send({ reply, id }),
            (err: unknown) => this.#send({ reply: undefined, id, error: err instanceof Error ? err.message : String(err) }),
          );
        } else {
          const waiting = this.#pending.get(item.id);
          this.#pending.delete(item.id);
          if (item.error === undefined) waiting?.resolve(item.reply as ReplyIn);
          else waiting?.reject(new Error(item.error));
        }
      }
    });
  }

  push(item: PushOut): void {
    this.#send({ push: item });
  }

  call(call: CallOut): Promise<ReplyIn> {
    const id = ++this.#nextId;
    return new Promise<ReplyIn>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#send({ call, id });
    });
  }
}
