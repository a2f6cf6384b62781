/**
 * Gathers the items one turn of the event loop produces and hands them on together, once the
 * turn's I/O is done (setImmediate): a worker thread's answers go back in one message, since
 * a message costs more than copying its contents. Returns the function that adds an item.
 */
export function turnOutbox<T>(flush: (items: T[]) => void): (item: T) => void {
  let outbox: T[] = [];
  return (item) => {
    if (outbox.length === 0) {
      setImmediate(() => {
        const items = outbox;
        outbox = [];
        flush(items);
      });
    }
    outbox.push(item);
  };
}
