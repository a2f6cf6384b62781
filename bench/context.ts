import type { WirehookApi } from './http/wirehook-api.ts';
import type { RunningWirehook } from './launchers/launcher.ts';
import type { BenchReceiver } from './receiver/receiver-client.ts';
import type { Tenant } from './setup/tenants.ts';
import type { BenchSettings } from './settings.ts';

/** Everything a scenario works with. */
export interface BenchContext {
  settings: BenchSettings;
  wirehook: RunningWirehook;
  receiver: BenchReceiver;
  api: WirehookApi;
  tenants: Tenant[];
  /** The Node flags `--node-args` gave Wirehook's processes (a process measured beside them gets them too). */
  nodeArgs: readonly string[];
  /** The message payload (JSON text of `settings.payloadBytes`). */
  payload: string;
  /** Progress on stderr. */
  log(line: string): void;
}
