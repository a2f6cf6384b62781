// The threaded floor's egress thread (bench/floor/threaded-floor-process.ts): the POSTs, signed
// by the main thread, sent from an endpoint's keep-alive pool with Wirehook's egress defaults on
// a worker thread, as Wirehook's egress thread sends them (undici, TLS and the sockets here).
import { workerData } from 'node:worker_threads';
import type { UndiciPool } from '../http/undici.ts';
import { endpointPool, type FloorReceiver, postSigned, type Sent } from './floor-parts.ts';
import { serveCalls } from './floor-thread.ts';

/** A call to the egress thread: a signed POST to an endpoint, or its pool closed (the endpoint deleted). */
export type EgressCall =
  | { op: 'post'; endpointId: string; url: string; path: string; headers: Record<string, string>; body: string }
  | { op: 'close'; endpointId: string };

const receiver = workerData as FloorReceiver;
const pools = new Map<string, UndiciPool>();

serveCalls<EgressCall, Sent | null>(async (call) => {
  if (call.op === 'close') {
    const pool = pools.get(call.endpointId);
    pools.delete(call.endpointId);
    await pool?.close();
    return null;
  }
  let pool = pools.get(call.endpointId);
  if (pool === undefined) pools.set(call.endpointId, (pool = endpointPool(call.url, receiver)));
  return postSigned(pool, call.path, call.headers, call.body);
});
