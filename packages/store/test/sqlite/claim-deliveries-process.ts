// A separate process for the claim race test (two dispatchers on one store file): opens the
// store file, prints "ready", waits for a line on stdin so every racer starts together,
// then tries to claim each delivery and prints the ids it won as one JSON line.
import { createInterface } from 'node:readline';
import type { DeliveryId } from '@wirehook/core';
import { openSqliteStore } from '../../src/sqlite/open-sqlite-store.ts';

/** The job of one racing process, passed as JSON in argv[2]. */
export interface ClaimDeliveriesJob {
  path: string;
  ids: DeliveryId[];
  now: number;
  leaseUntil: number;
}

/** What one racing process reports. */
export interface ClaimDeliveriesResult {
  won: DeliveryId[];
  errors: string[];
}

const job = JSON.parse(process.argv[2] ?? '{}') as ClaimDeliveriesJob;
const store = openSqliteStore({ path: job.path });
const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
await new Promise<void>((resolve) => lines.once('line', () => resolve()));
lines.close();

const result: ClaimDeliveriesResult = { won: [], errors: [] };
for (const id of job.ids) {
  try {
    const claimed = await store.deliveries.claim(id, job.now, job.leaseUntil);
    if (claimed !== null) result.won.push(claimed.delivery.id);
  } catch (err) {
    result.errors.push(String(err));
  }
}
await store.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
