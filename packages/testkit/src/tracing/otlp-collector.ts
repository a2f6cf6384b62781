import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carried it. */
export interface CollectedSpan {
  traceId: string;
  spanId: string;
  /** Undefined for a root span. */
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  /** The attributes of the resource that sent it (`service.name`, …). */
  resource: Record<string, unknown>;
}

/** A loopback stand-in for an OpenTelemetry collector's OTLP/HTTP traces endpoint (JSON). */
export interface OtlpCollector {
  /** Base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (exporters append `/v1/traces`). */
  readonly url: string;
  /** Every span received so far. */
  spans(): CollectedSpan[];
  /** How many export requests arrived. */
  requests(): number;
  stop(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: {
      spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpKeyValue[] }[];
    }[];
  }[];
}

/** Starts a collector on a free loopback port that accepts `POST /v1/traces` (OTLP JSON) and keeps the spans. */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const received: CollectedSpan[] = [];
  let requests = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      requests++;
      received.push(...flatten(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => [...received],
    requests: () => requests,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function flatten(body: OtlpExport): CollectedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs) => {
    const resource = attributes(rs.resource?.attributes);
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId || undefined,
        name: s.name,
        kind: s.kind,
        attributes: attributes(s.attributes),
        resource,
      })),
    );
  });
}

function attributes(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries(
    (list ?? []).map(({ key, value }) => [
      key,
      value.stringValue ?? value.boolValue ?? value.doubleValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)),
    ]),
  );
}
