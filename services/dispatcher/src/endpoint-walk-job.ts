import { ENDPOINT_WALK_BATCH, type Clock } from '@wirehook/core';
import type { Component, Logger } from '@wirehook/platform';
import type { Store } from '@wirehook/store';

/** Endpoints given a batch per round, in turn. */
const ENDPOINTS_PER_ROUND = 8;
/** Rounds one tick runs at most while walks are left; the rest waits for the next tick. */
const ROUNDS_PER_TICK = 25;

export interface EndpointWalkJobDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** How often it looks for walks (the sweep's interval). */
  intervalMs: number;
}

/**
 * Finishes the walks that pauses, resumes, disables and deletes leave (DeliveryRepo
 * walkEndpoints): each round a batch of ENDPOINT_WALK_BATCH deliveries for each of a few
 * endpoints, each batch its own short transaction, so another tenant's request waits at most
 * one batch. 100,000 held deliveries are released in about four ticks. Every dispatcher runs
 * it; two at once only repeat a query.
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
      for (let round = 0; round < ROUNDS_PER_TICK; round++) {
        const { changed, pending } = await store.deliveries.walkEndpoints(clock.now(), ENDPOINT_WALK_BATCH, ENDPOINTS_PER_ROUND);
        total += changed;
        // A round that changed nothing (a walk only waiting out a grace) ends the tick too.
        if (!pending || changed === 0) break;
      }
      if (total > 0) logger.info({ changed: total }, 'endpoint walks: deliveries held, released or failed');
    } catch (err) {
      logger.error({ err }, 'endpoint walk failed; trying again at the next tick');
    }
    return total;
  }
}
