// Its own module: cluster.ts starts services and start-wait.ts waits for them; both read it.

/** One service process of the cluster. */
export interface ServiceSpec {
  /** Unique name, used as the log prefix ("dispatcher-2"). */
  name: string;
  /** Folder under services/ holding src/main.ts. */
  service: string;
  env: Record<string, string>;
  /** Port of its /livez, /readyz and /metrics. */
  metricsPort: number;
}
