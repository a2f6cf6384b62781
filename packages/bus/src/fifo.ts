/**
 * A first-in first-out queue with O(1) push and shift at any length. `Array.prototype.shift`
 * moves every element once V8 stops using its fast path (past about 16,000 elements: 126 µs
 * a shift at 50,000), which turned a queue of wake-ups into quadratic work. Here the head
 * moves instead, and the consumed part is cut off once it is half the array.
 */
export class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The oldest item, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head]!;
    this.#items[this.#head++] = undefined as T; // let it be collected
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}
