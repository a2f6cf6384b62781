// startTracing as a service process runs it: a real child process (Node's own loader, so the
// ESM hook that instruments ioredis is the production one), a real redis-server, and a
// loopback OTLP/HTTP collector receiving the exported spans.
import { spawn } from 'node:child_process';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOtlpCollector, startRedisServer, type OtlpCollector, type RedisServer } from '@wirehook/testkit';

const PROBE = join(import.meta.dirname, 'testing', 'traced-process.ts');

interface Run {
  code: number | null;
  stderr: string;
  /** The JSON log lines it printed. */
  lines: Record<string, unknown>[];
}

/** Runs the probe with `env` on top of this process's environment minus every OTEL_ variable. */
function runProbe(env: Record<string, string>): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')));
  const child = spawn(process.execPath, [PROBE], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) =>
    child.once('close', (code) => {
      const lines = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      resolve({ code, stderr, lines });
    }),
  );
}

describe('startTracing in a service process', () => {
  let collector: OtlpCollector;
  let redis: RedisServer;
  beforeAll(async () => {
    [collector, redis] = await Promise.all([startOtlpCollector(), startRedisServer()]);
  });
  afterAll(async () => {
    await Promise.all([collector?.stop(), redis?.stop()]);
  });
  let seen = 0;
  beforeEach(() => {
    seen = collector.spans().length;
  });
  const newSpans = () => collector.spans().slice(seen);

  it('exports over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set; Redis commands are child spans; the log line carries the ids', async () => {
    const run = await runProbe({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, REDIS_URL: redis.url });
    expect(run).toMatchObject({ code: 0, stderr: '' });

    const spans = newSpans();
    const work = spans.find((s) => s.name === 'work')!;
    expect(work.resource['service.name']).toBe('traced-process');
    const redisSpans = spans.filter((s) => s.traceId === work.traceId && s.attributes['db.system.name'] === 'redis');
    expect(redisSpans.length).toBeGreaterThan(0);
    expect(redisSpans.every((s) => s.parentSpanId === work.spanId && s.kind === 3)).toBe(true);

    const line = run.lines.find((l) => l['msg'] === 'working');
    expect(line).toMatchObject({ exporting: true, trace_id: work.traceId, span_id: work.spanId, trace_flags: '01' });
  });

  it('takes service.name from OTEL_SERVICE_NAME and more resource attributes from OTEL_RESOURCE_ATTRIBUTES', async () => {
    const run = await runProbe({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: 'wirehook-gateway',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging,service.namespace=wirehook',
    });
    expect(run.code).toBe(0);
    expect(newSpans().find((s) => s.name === 'work')?.resource).toMatchObject({
      'service.name': 'wirehook-gateway',
      'service.namespace': 'wirehook',
      'deployment.environment.name': 'staging',
    });
  });

  it('records nothing without an endpoint, yet log lines still carry trace ids, flagged unsampled', async () => {
    const requests = collector.requests();
    const run = await runProbe({});
    expect(run.code).toBe(0);
    expect(run.lines.find((l) => l['msg'] === 'working')).toMatchObject({
      exporting: false,
      trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      trace_flags: '00',
    });
    expect(collector.requests()).toBe(requests);
  });

  it('OTEL_TRACES_SAMPLER=always_off records nothing; ids still reach the logs, flagged unsampled', async () => {
    const run = await runProbe({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_TRACES_SAMPLER: 'always_off' });
    expect(run.code).toBe(0);
    expect(newSpans()).toEqual([]);
    expect(run.lines.find((l) => l['msg'] === 'working')).toMatchObject({ trace_id: expect.any(String), trace_flags: '00' });
  });

  it('OTEL_SDK_DISABLED=true turns tracing off: no spans, no ids in the logs', async () => {
    const run = await runProbe({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SDK_DISABLED: 'true' });
    expect(run.code).toBe(0);
    expect(newSpans()).toEqual([]);
    expect(run.lines.find((l) => l['msg'] === 'working')).not.toHaveProperty('trace_id');
  });

  it('a collector that takes the connection and never answers is given 2 s of the stop, not the export’s own 10 s: the spans are dropped, said', async () => {
    const taken = new Set<Socket>();
    const silent = createServer((socket) => void taken.add(socket.on('error', () => undefined)));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const run = await runProbe({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` });
      // The probe lets the stop's rejection end it.
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('the last spans were not exported within 2000 ms (the OTLP endpoint did not answer in time): dropped');
    } finally {
      silent.close();
      for (const socket of taken) socket.destroy();
    }
  });

  it('refuses a bad value like every other setting: says which variable and exits non-zero', async () => {
    const run = await runProbe({ OTEL_TRACES_SAMPLER: 'sometimes' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('traced-process: invalid configuration');
    expect(run.stderr).toContain('OTEL_TRACES_SAMPLER');
  });
});
