/** One sample of Prometheus' text format: name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a `/metrics` text (comments skipped). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/**
 * The sum of the samples of `name` whose labels include `labels` (0 when there is none),
 * read from a metrics URL: other labels, such as the `service` every series carries, do not
 * have to be named.
 */
export async function readMetric(metricsUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(metricsUrl.endsWith('/metrics') ? metricsUrl : `${metricsUrl}/metrics`)).text();
  return parseMetrics(text)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}
