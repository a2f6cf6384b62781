// Batched publishing on a real nats-server: publishes made together travel as one JetStream
// message, and each is still handed out on its own, in its own trace.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { connect, headers as natsHeaders } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { eventually, recordSpans, startNatsServer, type NatsServer, type SpanRecorder } from '@wirehook/testkit';
import { inspect as inspectStream, testStream } from '../../test/nats-streams.ts';
import type { BusMessage } from '../bus.ts';
import { BATCH_HEADER, encodeBatch } from './batch-codec.ts';
import { NatsBus } from './nats-bus.ts';
import { MAX_BATCH_MESSAGES } from './publish-batcher.ts';
import type { StreamSpec } from './streams.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

let server: NatsServer;
let recorder: SpanRecorder;
beforeAll(async () => {
  server = await startNatsServer();
  recorder = await recordSpans();
});
afterAll(async () => {
  recorder?.stop();
  await server?.stop();
});

/** `count` publishes made in one turn (so one batch, up to 16), their payloads `<tag>0`, `<tag>1`, … */
const publishTogether = (bus: NatsBus, spec: StreamSpec, count: number, tag = '') =>
  Promise.all(Array.from({ length: count }, (_, i) => bus.publish(spec.subject, bytes(`${tag}${i}`))));

/** What the server says of the stream and its consumer (`stream.state.last_seq`: the JetStream messages stored). */
const inspect = (spec: StreamSpec) => inspectStream(server.url, spec);

describe('NatsBus on a batched stream', () => {
  const opened: NatsBus[] = [];
  const open = async (spec: StreamSpec, warnings: string[] = []) => {
    const bus = await NatsBus.connect({
      servers: server.url,
      name: 'batch-test',
      streams: [spec],
      logger: { warn: (_fields, message) => warnings.push(message) },
    });
    opened.push(bus);
    return bus;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((bus) => bus.close()));
  });

  it('publishes made in one turn are one JetStream message; each is handed out on its own, in its own trace', async () => {
    const spec = testStream();
    const bus = await open(spec);
    const tracer = trace.getTracer('batch-test');
    // Ten requests, each publishing inside its own span, all in the same turn.
    const requests = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        tracer.startActiveSpan(`request ${i}`, async (span) => {
          await bus.publish(spec.subject, bytes(String(i)));
          span.end();
          return span.spanContext();
        }),
      ),
    );
    expect((await inspect(spec)).stream.state.last_seq).toBe(1);

    const seen: BusMessage[] = [];
    bus.consume(spec.subject, async (m) => (seen.push(m), 'ack'), { concurrency: 10 });
    await eventually(() => expect(seen).toHaveLength(10));
    expect(seen.map((m) => text(m.data)).sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    for (const [i, request] of requests.entries()) {
      const message = seen.find((m) => text(m.data) === String(i))!;
      expect(message.deliveryCount).toBe(1);
      expect(message.headers).not.toHaveProperty(BATCH_HEADER);
      expect(trace.getSpanContext(message.traceContext)?.traceId).toBe(request.traceId);
      // The request's own trace: its publish span, and a process span under it.
      await eventually(() => expect(recorder.trace(request.traceId).map((s) => s.name)).toContain(`process ${spec.subject}`));
      const spans = recorder.trace(request.traceId);
      const publish = spans.find((s) => s.name === `publish ${spec.subject}`)!;
      expect(publish.parentSpanContext?.spanId).toBe(request.spanId);
      expect(spans.find((s) => s.name === `process ${spec.subject}`)!.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    }
    await eventually(async () => expect((await inspect(spec)).stream.state.messages).toBe(0));
  });

  it(`carries at most ${MAX_BATCH_MESSAGES} publishes a message: 16 take one, 17 two`, async () => {
    const spec = testStream();
    const bus = await open(spec);
    await publishTogether(bus, spec, 16, 'a');
    expect((await inspect(spec)).stream.state.last_seq).toBe(1);
    await publishTogether(bus, spec, 17, 'b');
    expect((await inspect(spec)).stream.state.last_seq).toBe(3);
    const seen = new Set<string>();
    bus.consume(spec.subject, async (m) => (seen.add(text(m.data)), 'ack'), { concurrency: 8 });
    await eventually(() => expect(seen.size).toBe(33));
  });

  it('a publish with a msgId travels alone and is de-duplicated by it', async () => {
    const spec = testStream();
    const bus = await open(spec);
    await Promise.all([
      bus.publish(spec.subject, bytes('a'), { msgId: 'one' }),
      bus.publish(spec.subject, bytes('a'), { msgId: 'one' }),
      bus.publish(spec.subject, bytes('b'), { msgId: 'two' }),
    ]);
    const state = (await inspect(spec)).stream.state;
    expect(state.messages).toBe(2);
  });

  it('a batch comes back whole when any of its messages asks to', async () => {
    const spec = testStream();
    const bus = await open(spec);
    await Promise.all(['ok', 'again', 'thrown'].map((body) => bus.publish(spec.subject, bytes(body))));
    const handled: string[] = [];
    bus.consume(
      spec.subject,
      async (m) => {
        const body = text(m.data);
        handled.push(`${body} ${m.deliveryCount}`);
        if (m.deliveryCount > 1) return 'ack';
        if (body === 'again') return { retryInMs: 200 };
        if (body === 'thrown') throw new Error('handler failed');
        return 'ack';
      },
      { concurrency: 3 },
    );
    await eventually(() => expect(handled).toHaveLength(6), 10_000);
    // The message that was handled is handed out again too: consumers of a batched stream are idempotent.
    expect(handled.sort()).toEqual(['again 1', 'again 2', 'ok 1', 'ok 2', 'thrown 1', 'thrown 2']);
    await eventually(async () => expect((await inspect(spec)).stream.state.messages).toBe(0));
  });

  it('a slow message of a batch holds its own slot only: the worker pulls on for the slots the others free', async () => {
    const spec = testStream();
    const bus = await open(spec);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const done: string[] = [];
    await publishTogether(bus, spec, 8);
    bus.consume(
      spec.subject,
      async (m) => {
        if (text(m.data) === '0') await released;
        done.push(text(m.data));
        return 'ack';
      },
      { concurrency: 2 },
    );
    try {
      await eventually(() => expect(done).toHaveLength(7));
      // Published after the batch, while its message "0" still runs: taken by the slot the others freed.
      await bus.publish(spec.subject, bytes('later'));
      await eventually(() => expect(done).toContain('later'));
    } finally {
      release();
    }
    await eventually(() => expect(done).toHaveLength(9));
  });

  it('runs no more handlers at once than its concurrency, over several batches', async () => {
    const spec = testStream();
    const bus = await open(spec);
    let running = 0;
    let most = 0;
    const done: string[] = [];
    bus.consume(
      spec.subject,
      async (m) => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 30));
        running--;
        done.push(text(m.data));
        return 'ack';
      },
      { concurrency: 3 },
    );
    await publishTogether(bus, spec, 6, 'a');
    // The second batch arrives while the first's last messages run (handed their slots one by one).
    await eventually(() => expect(done.length).toBeGreaterThanOrEqual(3));
    await publishTogether(bus, spec, 6, 'b');
    await eventually(() => expect(done).toHaveLength(12));
    expect(most).toBe(3);
  });

  it('a worker holds at most its concurrency and 15 more bus messages, the rest left to the other replicas', async () => {
    const spec = testStream();
    const bus = await open(spec);
    // Three batches of 16 wait before any consumer.
    for (const tag of ['x', 'y', 'z']) await publishTogether(bus, spec, 16, tag);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const done: string[] = [];
    bus.consume(
      spec.subject,
      async (m) => {
        await released;
        done.push(text(m.data));
        return 'ack';
      },
      { concurrency: 4 },
    );
    try {
      await eventually(async () => expect((await inspect(spec)).consumer.num_ack_pending).toBe(1));
      expect((await inspect(spec)).consumer.num_pending).toBe(2);
    } finally {
      release();
    }
    await eventually(() => expect(done).toHaveLength(48));
  });

  it('hands the whole batch out again no sooner than the longest delay any of its messages asked for', async () => {
    const spec = testStream();
    const bus = await open(spec);
    await Promise.all(['short', 'long'].map((body) => bus.publish(spec.subject, bytes(body))));
    const seen: { body: string; count: number; at: number }[] = [];
    bus.consume(
      spec.subject,
      async (m) => {
        const body = text(m.data);
        seen.push({ body, count: m.deliveryCount, at: Date.now() });
        if (m.deliveryCount > 1) return 'ack';
        return { retryInMs: body === 'short' ? 100 : 1_500 };
      },
      { concurrency: 2 },
    );
    await eventually(() => expect(seen).toHaveLength(4), 10_000);
    const first = Math.max(...seen.filter((s) => s.count === 1).map((s) => s.at));
    for (const again of seen.filter((s) => s.count === 2)) expect(again.at - first).toBeGreaterThanOrEqual(1_400);
  });

  it('a consumer stopping hands back the messages of a batch it has not started, with their batch', async () => {
    const spec = testStream();
    const bus = await open(spec);
    await Promise.all(['a0', 'a1', 'a2'].map((body) => bus.publish(spec.subject, bytes(body))));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const first: string[] = [];
    const subscription = bus.consume(
      spec.subject,
      async (m) => {
        first.push(text(m.data));
        await released;
        return 'ack';
      },
      { concurrency: 1 },
    );
    await eventually(() => expect(first).toEqual(['a0']));
    const stopping = subscription.stop();
    release();
    await stopping;
    expect(first).toEqual(['a0']);
    const second: string[] = [];
    bus.consume(spec.subject, async (m) => (second.push(`${text(m.data)} ${m.deliveryCount}`), 'ack'), { concurrency: 3 });
    await eventually(() => expect(second.sort()).toEqual(['a0 2', 'a1 2', 'a2 2']));
  });

  it('close() sends what was published before it', async () => {
    const spec = testStream();
    const bus = await NatsBus.connect({ servers: server.url, name: 'batch-test', streams: [spec] });
    const published = Array.from({ length: 5 }, (_, i) => bus.publish(spec.subject, bytes(String(i))));
    const closing = bus.close();
    // Refused at once while close() sends the others.
    await expect(bus.publish(spec.subject, bytes('during'))).rejects.toThrow('bus is closed');
    await closing;
    await Promise.all(published);
    expect((await inspect(spec)).stream.state.messages).toBe(1);
    await expect(bus.publish(spec.subject, bytes('after'))).rejects.toThrow('bus is closed');
  });

  it('drops a message marked as a batch that is not one, with a warning, and goes on', async () => {
    const spec = testStream();
    const warnings: string[] = [];
    const bus = await open(spec, warnings);
    const nc = await connect({ servers: server.url });
    try {
      const js = jetstream(nc);
      const marked = natsHeaders();
      marked.set(BATCH_HEADER, '2');
      await js.publish(spec.subject, bytes('not protobuf at all'), { headers: marked });
      const good = natsHeaders();
      good.set(BATCH_HEADER, '2');
      await js.publish(
        spec.subject,
        encodeBatch([
          { data: bytes('x'), headers: {} },
          { data: bytes('y'), headers: {} },
        ]),
        { headers: good },
      );
      // A plain message, as published before batches: read as one bus message.
      await js.publish(spec.subject, bytes('plain'));
    } finally {
      await nc.close();
    }
    const seen: string[] = [];
    bus.consume(spec.subject, async (m) => (seen.push(text(m.data)), 'ack'), { concurrency: 4 });
    await eventually(() => expect(seen.sort()).toEqual(['plain', 'x', 'y']));
    expect(warnings).toContain('a JetStream message is not a readable batch; dropped');
    await eventually(async () => expect((await inspect(spec)).stream.state.messages).toBe(0));
  });
});
