import { ENDPOINT_WALK_BATCH, type Clock } from '@wirehook/core';
import type { Component, Logger } from '@wirehook/platform';
import type { Store } from '@wirehook/store';

/**
 * Batches one tick runs at most while walks are left (each the next endpoint's, in turn); the
 * rest waits for the next tick.
 */
const BATCHES_PER_TICK = 200;
/** Batches in a row that changed nothing before a tick gives up (a turn over that many endpoints). */
const IDLE_TURN = 8;

export interface EndpointWalkJobDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** How often it looks for walks (the sweep's interval). */
  intervalMs: number;
}

/**
 * Finishes the walks that pauses, resumes, disables and deletes leave (DeliveryRepo
 * walkEndpoints): a batch of ENDPOINT_WALK_BATCH deliveries of one endpoint at a time, the
 * endpoints in turn, each batch its own short transaction and its own call to the store: the
 * store serves the calls in arrival order, so another tenant's request waits at most one
 * batch (eight batches in one call made it wait for all eight). 100,000 held deliveries are
 * released in one tick. Every dispatcher runs it; two at once only repeat a query.
 */
export class EndpointWalkJob implements Component {
  readonly name = 'endpoint-walks';
  readonly #deps: EndpointWalkJobDeps;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;

  constructor(deps: EndpointWalkJobDeps) {
    this.#deps = deps;
  }

  async start(): Promise<void> {
    this.#timer = setInterval(() => void this.runOnce(), this.#deps.intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  /** One tick: rounds until no walk is left or the tick's rounds are spent. @returns deliveries changed. */
  runOnce(): Promise<number> {
    this.#running ??= this.#walk().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #walk(): Promise<number> {
    const { store, clock, logger } = this.#deps;
    let total = 0;
    try {
      let idle = 0;
      for (let batch = 0; batch < BATCHES_PER_TICK; batch++) {
        const { changed, pending, leftForLater } = await store.deliveries.walkEndpoints(clock.now(), ENDPOINT_WALK_BATCH, 1);
        if (leftForLater !== undefined)
          logger.warn({ err: leftForLater }, 'endpoint walks: a walk asked to run again failed to start; trying it again in a minute');
        total += changed;
        if (!pending) break;
        // Walks that changed nothing in a full turn (only waiting out a grace) end the tick too.
        idle = changed === 0 ? idle + 1 : 0;
        if (idle >= IDLE_TURN) break;
      }
      if (total > 0) logger.info({ changed: total }, 'endpoint walks: deliveries held, released or failed');
    } catch (err) {
      logger.error({ err }, 'endpoint walk failed; trying again at the next tick');
    }
    return total;
  }
}
