import { readFileSync, statSync } from 'node:fs';
import type { Clock } from '@wirehook/core';

/**
 * Test-only clock for multi-process runs (WIREHOOK_TEST_CLOCK_FILE): the wall clock plus an
 * offset in milliseconds read from a file, so a test can move the time of every process of
 * a cluster at once instead of sleeping. The file is re-read when it changes (checked at
 * most every `checkEveryMs`).
 */
export class FileOffsetClock implements Clock {
  readonly #file: string;
  readonly #checkEveryMs: number;
  #offset = 0;
  #mtimeMs = -1;
  #checkedAt = 0;

  constructor(file: string, checkEveryMs = 5) {
    this.#file = file;
    this.#checkEveryMs = checkEveryMs;
    this.#refresh(Date.now());
  }

  now(): number {
    const wall = Date.now();
    if (wall - this.#checkedAt >= this.#checkEveryMs) this.#refresh(wall);
    return wall + this.#offset;
  }

  #refresh(wall: number): void {
    this.#checkedAt = wall;
    try {
      const { mtimeMs } = statSync(this.#file);
      if (mtimeMs === this.#mtimeMs) return;
      this.#mtimeMs = mtimeMs;
      const offset = Number(readFileSync(this.#file, 'utf8').trim() || '0');
      if (Number.isFinite(offset)) this.#offset = offset;
    } catch {
      // No file yet: no offset.
    }
  }
}
