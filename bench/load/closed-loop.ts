/**
 * Runs `task(i)` for every i in [from, from + count) with at most `concurrency` running at
 * once: each worker starts the next task as soon as its previous one settles (a closed
 * loop, like a client with a fixed number of connections). Rejects with the first error.
 */
export async function closedLoop(from: number, count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = from;
  const end = from + count;
  const worker = async () => {
    for (let i = next++; i < end; i = next++) await task(i);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
