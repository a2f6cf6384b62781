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
  /** The message payload (JSON text of `settings.payloadBytes`). */
  payload: string;
  /** Progress on stderr. */
  log(line: string): void;
}
