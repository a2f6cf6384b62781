// The client's write concern, read back from a MongoClient the driver built (no connection made).
import { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { clientOptions } from './client-options.ts';
import { MAJORITY_WAIT_MS, TRANSACTION_OPTIONS } from './connection.ts';

const writeConcern = (url: string) => {
  const wc = new MongoClient(url, clientOptions(url, false)).options.writeConcern;
  return { w: wc?.w, wtimeoutMS: wc?.wtimeoutMS };
};

describe('clientOptions', () => {
  it(`has every write a majority confirms within ${MAJORITY_WAIT_MS / 1000} s, a transaction's commit included`, () => {
    expect(writeConcern('mongodb://db-0:27017,db-1:27017/wirehook?replicaSet=rs0')).toEqual({ w: 'majority', wtimeoutMS: 10_000 });
    expect(writeConcern('mongodb://db-0:27017')).toEqual({ w: 'majority', wtimeoutMS: 10_000 });
    expect(TRANSACTION_OPTIONS.writeConcern).toEqual({ w: 'majority', wtimeoutMS: 10_000 });
  });

  it("keeps the connection string's own w and wtimeoutMS, each apart", () => {
    expect(writeConcern('mongodb://db-0:27017/wirehook?replicaSet=rs0&w=1')).toEqual({ w: 1, wtimeoutMS: 10_000 });
    expect(writeConcern('mongodb://db-0:27017/?wtimeoutMS=2500')).toEqual({ w: 'majority', wtimeoutMS: 2_500 });
    expect(writeConcern('mongodb://db-0:27017/?W=2&WTimeoutMS=500')).toEqual({ w: 2, wtimeoutMS: 500 });
  });
});
