// Indexes a layout replaced, dropped at every start after the layout upgrade (indexes.ts dropRetiredIndexes), without a server:
// a stand-in database that records what each collection is asked.
import type { Db } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { dropRetiredIndexes, ensureIndexes, RETIRED_INDEXES } from './indexes.ts';

function database(dropError: (name: string) => Error | null) {
  const asked: string[] = [];
  const db = {
    collection: (collection: string) => ({
      dropIndex: async (name: string) => {
        asked.push(`drop ${collection}.${name}`);
        const err = dropError(name);
        if (err !== null) throw err;
      },
      createIndexes: async (indexes: { name: string }[]) => {
        asked.push(`create ${collection}: ${indexes.map((i) => i.name).join(', ')}`);
      },
    }),
    createCollection: async (name: string) => {
      asked.push(`collection ${name}`);
    },
  } as unknown as Db;
  return { db, asked };
}

describe('indexes a layout replaced', () => {
  it('drops due_endpoints_due (an older binary started since may have made it again); making the indexes drops none', async () => {
    expect(RETIRED_INDEXES).toEqual([['due_endpoints', 'due_endpoints_due']]);
    const { db, asked } = database(() => null);
    await dropRetiredIndexes(db);
    expect(asked).toEqual(['drop due_endpoints.due_endpoints_due']);
    const made = database(() => null);
    await ensureIndexes(made.db);
    expect(made.asked.filter((a) => a.startsWith('drop'))).toEqual([]);
    expect(made.asked).toContain('create due_endpoints: due_endpoints_tenant');
    expect(made.asked).toContain('create due_tenants: due_tenants_due');
  });

  it('an index already gone, or its collection not made yet, is no error; any other error is', async () => {
    const gone = database(() => new MongoServerError({ codeName: 'IndexNotFound', errmsg: 'index not found with name [due_endpoints_due]' }));
    await dropRetiredIndexes(gone.db);
    const none = database(() => new MongoServerError({ codeName: 'NamespaceNotFound', errmsg: 'ns not found' }));
    await dropRetiredIndexes(none.db);
    const refused = database(() => new MongoServerError({ codeName: 'Unauthorized', errmsg: 'not authorized to drop indexes' }));
    await expect(dropRetiredIndexes(refused.db)).rejects.toThrow('not authorized');
  });
});
