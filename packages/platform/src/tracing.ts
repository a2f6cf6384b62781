// OpenTelemetry tracing of one process. Imported through `@wirehook/platform/tracing`, on its
// own, by each service main before anything else loads: the libraries instrumented here
// (ioredis, mongodb) must be hooked before they are first imported.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, envDetector, detectResources, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { z } from 'zod';
import { setSpansRecorded, within } from '@wirehook/core';
import { loadConfig } from './config.ts';

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

/** An unset variable and an empty one mean the same (Helm templates render empty strings). */
const optionalText = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());

/**
 * The standard OTEL_* variables Wirehook acts on. The OTLP exporter reads its other standard
 * variables itself (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION, the _TRACES_ forms).
 */
export const tracingEnvSchema = z.object({
  OTEL_SDK_DISABLED: z.stringbool().default(false), // true: no tracing at all (and no trace ids in logs)
  OTEL_SERVICE_NAME: optionalText, // service.name; default: the service's own name (gateway, message-intake, …)
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalText, // OTLP/HTTP base URL (…/v1/traces is appended); unset: spans are not exported
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalText, // full OTLP/HTTP traces URL, instead of the base one
  OTEL_TRACES_SAMPLER: z.enum(SAMPLERS).default('parentbased_always_on'), // which traces are recorded
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(), // the ratio of the *traceidratio samplers (default 1)
});

/**
 * ES module imports hooked before they load, so their instrumentation can patch them as they
 * are imported. The MongoDB instrumentation needs no hook: it patches files the driver
 * `require`s internally (CommonJS), which require-in-the-middle sees.
 */
const HOOKED_IMPORTS = ['ioredis'];

/** What a process's tracing is started with; everything else comes from the OTEL_* variables. */
export interface StartTracingOptions {
  /** `service.name` of the spans, unless OTEL_SERVICE_NAME says otherwise. */
  serviceName: string;
  /**
   * Span processors to use instead of the OTLP exporter the environment asks for (tests: an
   * InMemorySpanExporter behind a SimpleSpanProcessor).
   */
  spanProcessors?: SpanProcessor[];
  /**
   * Hook and instrument ioredis and mongodb when spans are exported (default true). Tests
   * running inside vitest turn it off: vitest's module runner, not Node's loader, loads
   * their modules.
   */
  instrumentLibraries?: boolean;
}

/**
 * How long a stop waits for its last spans to be exported. Left to itself the exporter tries an
 * unreachable collector again and again for up to OTEL_EXPORTER_OTLP_TIMEOUT (10 s): measured,
 * 8.7 s with the collector's port closed and 10.5 s with it silent, spent by every stop on top
 * of its drain. A prompt stop is worth more than those spans.
 */
export const TRACING_FLUSH_MS = 2_000;

/** The tracing of this process; a Component, so `main` stops it last (it flushes the spans). */
export interface Tracing {
  readonly name: 'tracing';
  /** True when spans leave the process (an OTLP endpoint is set, or processors were given). */
  readonly exporting: boolean;
  start(): Promise<void>;
  /**
   * Exports the spans still buffered, then ends tracing and clears the global registrations.
   * Rejects when the export has not ended within TRACING_FLUSH_MS (the spans left are dropped).
   */
  stop(): Promise<void>;
}

/**
 * Starts tracing for this process: a W3C trace-context propagator, the AsyncLocalStorage
 * context manager and a tracer provider, registered globally, so every `@opentelemetry/api`
 * call in the process (gRPC metadata, bus headers, log lines) sees the active span. Spans
 * are exported over OTLP/HTTP only when OTEL_EXPORTER_OTLP_ENDPOINT (or the _TRACES_ form)
 * is set; without it no span is recorded, but trace ids (a caller's, or new ones) still flow
 * between services and into the logs, passed on as unsampled. Reads the OTEL_* variables
 * of `tracingEnvSchema` from `process.env` — the OTel SDK's own contract — and exits like
 * `loadConfig` on a bad value. Call it once per process.
 */
export async function startTracing(options: StartTracingOptions): Promise<Tracing> {
  const env = loadConfig(tracingEnvSchema, process.env, options.serviceName);
  if (env.OTEL_SDK_DISABLED) return { name: 'tracing', exporting: false, start: async () => {}, stop: async () => {} };

  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const spanProcessors = options.spanProcessors ?? (endpoint ? [await otlpProcessor()] : []);
  const provider = new TracerProvider({
    resource: defaultResource()
      .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }))
      // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME win over the defaults.
      .merge(detectResources({ detectors: [envDetector] })),
    // Nothing would read a recorded span: make none (about 8 % of the CPU per message in
    // docs/benchmarks.md). Trace ids still flow and reach the logs, flagged unsampled.
    sampler: spanProcessors.length > 0 ? sampler(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG ?? 1) : new AlwaysOffSampler(),
    spanProcessors,
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setSpansRecorded(spanProcessors.length > 0);
  // Library spans only matter when spans are recorded; the import hooks cost every require.
  const instrument = options.instrumentLibraries !== false && spanProcessors.length > 0;
  const unregister = instrument ? await instrumentLibraries() : () => {};

  let stopped: Promise<void> | undefined;
  return {
    name: 'tracing',
    exporting: spanProcessors.length > 0,
    start: async () => {},
    stop: () => {
      stopped ??= (async () => {
        unregister();
        try {
          const late = () => new Error(`the last spans were not exported within ${TRACING_FLUSH_MS} ms (the OTLP endpoint did not answer in time): dropped`);
          await within(provider.shutdown(), TRACING_FLUSH_MS, late);
        } finally {
          setSpansRecorded(false);
          trace.disable();
          propagation.disable();
          context.disable();
        }
      })();
      return stopped;
    },
  };
}

/** Batches spans to the OTLP/HTTP endpoint of the environment (JSON over HTTP). */
async function otlpProcessor(): Promise<SpanProcessor> {
  // Loaded only when exporting: a process that does not export never loads the exporter.
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  return new BatchSpanProcessor({ exporter: new OTLPTraceExporter() });
}

function sampler(name: (typeof SAMPLERS)[number], ratio: number): Sampler {
  let root: Sampler = new AlwaysOnSampler();
  if (name.endsWith('always_off')) root = new AlwaysOffSampler();
  if (name.endsWith('traceidratio')) root = new TraceIdRatioBasedSampler(ratio);
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/**
 * Hooks the ES module imports of ioredis, then instruments ioredis and mongodb (Redis
 * commands and MongoDB operations become child spans). Only spans with a parent are made, so health
 * checks and background polling do not start traces of their own.
 */
async function instrumentLibraries(): Promise<() => void> {
  const { register: registerImportHooks, supportsSyncHooks } = await import('import-in-the-middle/register-hooks.mjs');
  if (supportsSyncHooks()) {
    registerImportHooks({ include: HOOKED_IMPORTS });
  } else {
    process.stderr.write(`tracing: Node ${process.version} cannot hook ES module imports synchronously (24.11.1 or later can); ioredis spans are off\n`);
  }
  const [{ registerInstrumentations }, { IORedisInstrumentation }, { MongoDBInstrumentation }] = await Promise.all([
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-mongodb'),
  ]);
  return registerInstrumentations({
    instrumentations: [new IORedisInstrumentation({ requireParentSpan: true }), new MongoDBInstrumentation({ requireParentSpan: true })],
  });
}
