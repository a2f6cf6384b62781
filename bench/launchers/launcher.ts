// How the bench starts Wirehook. Embedded mode is the only launcher today; cluster mode
// (`--cluster`) plugs in as another Launcher that starts its processes and reports their
// pids, so the scenarios, the receiver and the report stay as they are.

/** What every launcher is given. */
export interface LaunchOptions {
  /** A fresh, empty data directory this run owns. */
  dataDir: string;
  /** Extra environment for every Wirehook process (delivery allow-list, trusted CA, …). */
  env: Record<string, string>;
  /** Where the processes' stdout and stderr go. */
  logFile: string;
  /** Extra node flags for the Wirehook processes (e.g. --cpu-prof). */
  execArgv: string[];
  /** Cluster mode's dispatcher replicas (settings.dispatchers); the cluster launcher needs it, the embedded one has none. */
  dispatchers?: number;
  /** The checkout whose Wirehook and admin CLI run (`--ab-root`): this one unless given. Embedded mode only. */
  root?: string;
}

/** A started Wirehook, however many processes it is. */
export interface RunningWirehook {
  /** Base URL of the public API, e.g. http://127.0.0.1:40123 (no trailing slash). */
  readonly apiUrl: string;
  /** Every Wirehook process: the bench samples their RSS and CPU (summed). */
  readonly pids: readonly number[];
  /** Cluster mode: each service's metrics base URL (`http://127.0.0.1:<port>`) by service name. */
  readonly metricsUrls?: Readonly<Record<string, string>>;
  /** Runs one admin CLI command against this Wirehook; @returns its JSON output. @throws on a non-zero exit. */
  admin(args: string[]): Promise<Record<string, unknown>>;
  /** Stops every process (SIGTERM, then SIGKILL after a deadline). */
  stop(): Promise<void>;
}

/** Starts a Wirehook deployment on this machine. */
export interface Launcher {
  /** As shown in the report, e.g. `embedded`. */
  readonly name: string;
  launch(options: LaunchOptions): Promise<RunningWirehook>;
}
