// A separate process for the cap race test (like the admin CLI beside the server): opens the
// store file, prints "ready", waits for a line on stdin so every racer starts together,
// then tries to create endpoints and prints what happened as one JSON line.
import { createInterface } from 'node:readline';
import { InvalidError, newId, systemClock, type ConsumerId, type Tenant } from '@wirehook/core';
import { openSqliteStore } from '../../src/sqlite/open-sqlite-store.ts';
import { plainEndpoint } from '../contract/fixtures.ts';

/** The job of one racing process, passed as JSON in argv[2]. */
export interface CreateEndpointsJob {
  path: string;
  tenant: Tenant;
  consumerId: ConsumerId;
  attempts: number;
  max: number;
}

/** What one racing process reports. */
export interface CreateEndpointsResult {
  created: number;
  capped: number;
  errors: string[];
}

const job = JSON.parse(process.argv[2] ?? '{}') as CreateEndpointsJob;
const store = openSqliteStore({ path: job.path });
const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
await new Promise<void>((resolve) => lines.once('line', () => resolve()));
lines.close();

const result: CreateEndpointsResult = { created: 0, capped: 0, errors: [] };
for (let i = 0; i < job.attempts; i++) {
  const now = systemClock.now();
  try {
    await store.endpoints.create(
      job.tenant,
      plainEndpoint(newId('endpoint', systemClock), job.consumerId, now, {
        url: `https://race.example/${process.pid}/${i}`,
        retry: { count: 7, interval: 'progressive' },
      }),
      { sealed: `v1.${process.pid}.${i}`, createdAt: now, expiresAt: null },
      job.max,
    );
    result.created++;
  } catch (err) {
    if (err instanceof InvalidError) result.capped++;
    else result.errors.push(String(err));
  }
}
await store.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
