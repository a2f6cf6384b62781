// The control beside the API probe: a bare node:http server in a process of its own
// (control-server-process.ts), probed like Wirehook's API and in the same windows. At equal
// priority nothing on this machine answers a caller faster, so its p99 while Wirehook
// delivers (against its own idle p99) is what the machine's scheduling alone does to a
// caller's latency at that load: the floor under the API probe's figure (docs/benchmarks.md).
import { ForkedServer } from './forked-server.ts';

const CONTROL_MAIN = new URL('./control-server-process.ts', import.meta.url);

/** Starts the control server's process; its `url` is the probe's `apiUrl`. */
export function startControlServer(): Promise<ForkedServer> {
  return ForkedServer.start(CONTROL_MAIN, [], 'the control server');
}
