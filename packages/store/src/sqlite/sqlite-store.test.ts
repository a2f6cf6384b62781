import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStoreContract } from '../../test/contract/store-contract.ts';
import { openSqliteStore } from './open-sqlite-store.ts';
import { openThreadedSqliteStore } from './threaded-store.ts';

// The Store contract on each way SQLite is opened: in memory, on a file, on a worker thread.

describeStoreContract('sqlite :memory:', async () => openSqliteStore({ path: ':memory:' }));

const contractDir = mkdtempSync(join(tmpdir(), 'wirehook-store-contract-'));
describeStoreContract(
  'sqlite file',
  async () => openSqliteStore({ path: join(contractDir, 'contract.sqlite') }),
  async (store) => {
    await store.close();
    rmSync(contractDir, { recursive: true, force: true });
  },
);

const threadedDir = mkdtempSync(join(tmpdir(), 'wirehook-store-threaded-'));
describeStoreContract(
  'sqlite on a worker thread',
  async () => openThreadedSqliteStore({ path: join(threadedDir, 'contract.sqlite') }),
  async (store) => {
    await store.close();
    rmSync(threadedDir, { recursive: true, force: true });
  },
);
