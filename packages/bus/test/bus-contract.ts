// The Bus contract: what every adapter must do, as one vitest suite. It lives in test/, outside
// src, and is imported only by the adapters' tests, so production code never loads vitest or testkit.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode, trace, type SpanContext } from '@opentelemetry/api';
import { eventually, recordSpans, type SpanRecorder } from '@wirehook/testkit';
import { type Bus, type BusMessage, type HandleResult, NoResponderError, RequestTimeoutError } from '../src/bus.ts';

/** One broker under test, opened afresh for each test. */
export interface ContractBroker {
  /** A subject the broker carries, with nothing on it yet. */
  readonly subject: string;
  /** A new connection to the same broker (an in-process adapter may hand out the same instance). */
  connect(): Promise<Bus>;
}

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tracks handlers in flight, overall and at most. */
function gauge() {
  const g = {
    running: 0,
    max: 0,
    async around<T>(work: () => Promise<T>): Promise<T> {
      g.running++;
      g.max = Math.max(g.max, g.running);
      try {
        return await work();
      } finally {
        g.running--;
      }
    },
  };
  return g;
}

/**
 * Declares the Bus contract suite for one adapter. `open` is called once per test; every
 * connection it hands out is closed after the test.
 */
export function describeBusContract(name: string, open: () => Promise<ContractBroker>): void {
  describe(`Bus contract: ${name}`, () => {
    const opened: Bus[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((bus) => bus.close()));
    });
    const setup = async () => {
      const broker = await open();
      const connect = async () => {
        const bus = await broker.connect();
        opened.push(bus);
        return bus;
      };
      return { subject: broker.subject, connect };
    };

    it('answers a ping while open (readiness) and refuses one once closed', async () => {
      const { connect } = await setup();
      const bus = await connect();
      await expect(bus.ping()).resolves.toBeUndefined();
      await bus.close();
      await expect(bus.ping()).rejects.toThrow(/closed/);
    });

    it('hands each message to exactly one consumer, within each consumer’s concurrency', async () => {
      const { subject, connect } = await setup();
      const bus = await connect();
      const seen: string[] = [];
      const all = gauge();
      const consumer = (concurrency: number) => {
        const own = gauge();
        bus.consume(
          subject,
          (m) =>
            all.around(() =>
              own.around(async () => {
                await sleep(10);
                seen.push(text(m.data));
                return 'ack' as const;
              }),
            ),
          { concurrency },
        );
        return own;
      };
      const three = consumer(3);
      const two = consumer(2);
      for (let i = 0; i < 40; i++) await bus.publish(subject, bytes(String(i)));
      await eventually(() => expect(seen).toHaveLength(40), 10_000);
      expect(new Set(seen).size).toBe(40);
      expect(three.max).toBeLessThanOrEqual(3);
      expect(two.max).toBeLessThanOrEqual(2);
      expect(all.max).toBeGreaterThan(1);
      await sleep(100);
      expect(seen).toHaveLength(40);
    });

    it('shares the work between consumers on separate connections', async () => {
      const { subject, connect } = await setup();
      const [a, b] = [await connect(), await connect()];
      const got = { a: [] as string[], b: [] as string[] };
      const handler =
        (into: string[]) =>
        async (m: BusMessage): Promise<HandleResult> => {
          await sleep(10);
          into.push(text(m.data));
          return 'ack';
        };
      a.consume(subject, handler(got.a), { concurrency: 2 });
      b.consume(subject, handler(got.b), { concurrency: 2 });
      for (let i = 0; i < 30; i++) await a.publish(subject, bytes(String(i)));
      await eventually(() => expect(got.a.length + got.b.length).toBe(30), 10_000);
      expect(new Set([...got.a, ...got.b]).size).toBe(30);
      expect(got.a.length).toBeGreaterThan(0);
      expect(got.b.length).toBeGreaterThan(0);
    });

    it('hands a message out again after retryInMs, and after a throw, counting deliveries', async () => {
      const { subject, connect } = await setup();
      const bus = await connect();
      const deliveries: { count: number; at: number }[] = [];
      bus.consume(
        subject,
        async (m) => {
          deliveries.push({ count: m.deliveryCount, at: Date.now() });
          if (m.deliveryCount === 1) return { retryInMs: 300 };
          if (m.deliveryCount === 2) throw new Error('handler failed');
          return 'ack';
        },
        { concurrency: 1 },
      );
      await bus.publish(subject, bytes('x'));
      await eventually(() => expect(deliveries.map((d) => d.count)).toEqual([1, 2, 3]), 10_000);
      const [first, second] = deliveries;
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(250);
      await sleep(200);
      expect(deliveries).toHaveLength(3);
    });

    it('hands out each of the messages published together once (an adapter may carry them as one)', async () => {
      const { subject, connect } = await setup();
      const bus = await connect();
      const seen: string[] = [];
      const handler = async (m: BusMessage): Promise<HandleResult> => (seen.push(text(m.data)), 'ack');
      bus.consume(subject, handler, { concurrency: 3 });
      bus.consume(subject, handler, { concurrency: 2 });
      await Promise.all(Array.from({ length: 20 }, (_, i) => bus.publish(subject, bytes(String(i)))));
      await eventually(() => expect(seen).toHaveLength(20), 10_000);
      expect(new Set(seen).size).toBe(20);
      // A marker published last arrives after anything still queued: nothing else is.
      await bus.publish(subject, bytes('marker'));
      await eventually(() => expect(seen).toContain('marker'));
      expect(seen).toHaveLength(21);
    });

    it('drops a second publish with the same msgId', async () => {
      const { subject, connect } = await setup();
      const bus = await connect();
      await bus.publish(subject, bytes('a'), { msgId: 'one' });
      await bus.publish(subject, bytes('a'), { msgId: 'one' });
      await bus.publish(subject, bytes('b'), { msgId: 'two' });
      const got: string[] = [];
      bus.consume(subject, async (m) => (got.push(text(m.data)), 'ack'), { concurrency: 1 });
      await eventually(() => expect(got).toEqual(['a', 'b']));
      // A marker published last arrives after anything still queued: nothing else is.
      await bus.publish(subject, bytes('end'));
      await eventually(() => expect(got).toEqual(['a', 'b', 'end']));
    });

    it('keeps messages published before any consumer exists', async () => {
      const { subject, connect } = await setup();
      const publisher = await connect();
      for (const m of ['1', '2', '3']) await publisher.publish(subject, bytes(m));
      await sleep(100);
      const consumer = await connect();
      const got: string[] = [];
      consumer.consume(subject, async (m) => (got.push(text(m.data)), 'ack'), { concurrency: 4 });
      await eventually(() => expect([...got].sort()).toEqual(['1', '2', '3']));
    });

    it('carries headers', async () => {
      const { subject, connect } = await setup();
      const bus = await connect();
      const headers = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'x-wirehook-test': 'yes' };
      await bus.publish(subject, bytes('h'), { headers, msgId: 'with-headers' });
      const got: BusMessage[] = [];
      bus.consume(subject, async (m) => (got.push(m), 'ack'), { concurrency: 1 });
      await eventually(() => expect(got).toHaveLength(1));
      expect(got[0]!.headers).toEqual(headers);
      expect(got[0]!.subject).toBe(subject);
      expect(got[0]!.deliveryCount).toBe(1);
    });

    it('stop() waits for running handlers; later messages go to the other consumers', async () => {
      const { subject, connect } = await setup();
      const bus = await connect();
      const gotA: string[] = [];
      let finishedA = false;
      const subA = bus.consume(
        subject,
        async (m) => {
          gotA.push(text(m.data));
          await sleep(300);
          finishedA = true;
          return 'ack';
        },
        { concurrency: 1 },
      );
      await bus.publish(subject, bytes('first'));
      await eventually(() => expect(gotA).toEqual(['first']));
      await subA.stop();
      expect(finishedA).toBe(true);
      const gotB: string[] = [];
      bus.consume(subject, async (m) => (gotB.push(text(m.data)), 'ack'), { concurrency: 1 });
      await bus.publish(subject, bytes('second'));
      await bus.publish(subject, bytes('third'));
      await eventually(() => expect(gotB).toEqual(['second', 'third']));
      expect(gotA).toEqual(['first']);
    });

    describe('trace context', () => {
      let recorder: SpanRecorder;
      beforeAll(async () => {
        recorder = await recordSpans();
      });
      afterAll(() => recorder.stop());
      /** Publishes `body` inside a new `request` span; returns that span's context. */
      const publishInSpan = (bus: Bus, subject: string, body: string) =>
        trace.getTracer('bus-contract').startActiveSpan('request', async (span) => {
          await bus.publish(subject, bytes(body), { headers: { 'x-wirehook-test': 'kept' } });
          span.end();
          return span.spanContext();
        });

      it('the handler continues the publisher’s trace: traceparent header, traceContext, a process span', async () => {
        const { subject, connect } = await setup();
        const bus = await connect();
        const seen: { message: BusMessage; active: SpanContext | undefined }[] = [];
        bus.consume(subject, async (m) => (seen.push({ message: m, active: trace.getActiveSpan()?.spanContext() }), 'ack'), {
          concurrency: 1,
        });
        const request = await publishInSpan(bus, subject, 'traced');
        await eventually(() => expect(recorder.trace(request.traceId).map((s) => s.name)).toContain(`process ${subject}`));

        const spans = recorder.trace(request.traceId);
        const publish = spans.find((s) => s.name === `publish ${subject}`)!;
        const process = spans.find((s) => s.name === `process ${subject}`)!;
        expect(publish.kind).toBe(SpanKind.PRODUCER);
        expect(publish.parentSpanContext?.spanId).toBe(request.spanId);
        expect(publish.attributes).toMatchObject({ 'messaging.destination.name': subject, 'messaging.operation.type': 'send' });
        expect(process.kind).toBe(SpanKind.CONSUMER);
        expect(process.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
        expect(process.attributes).toMatchObject({ 'messaging.operation.type': 'process', 'wirehook.bus.delivery_count': 1 });

        const { message, active } = seen[0]!;
        expect(message.headers).toEqual({
          'x-wirehook-test': 'kept',
          traceparent: `00-${request.traceId}-${publish.spanContext().spanId}-01`,
        });
        expect(trace.getSpanContext(message.traceContext)).toMatchObject({ traceId: request.traceId, isRemote: true });
        expect(active).toMatchObject({ traceId: request.traceId, spanId: process.spanContext().spanId });
      });

      it('a handler that throws fails its process span; the redelivery is a new process span in the same trace', async () => {
        const { subject, connect } = await setup();
        const bus = await connect();
        bus.consume(
          subject,
          async (m) => {
            if (m.deliveryCount === 1) throw new Error('handler failed');
            return 'ack';
          },
          { concurrency: 1 },
        );
        const request = await publishInSpan(bus, subject, 'fails once');
        const processed = () => recorder.trace(request.traceId).filter((s) => s.name === `process ${subject}`);
        await eventually(() => expect(processed()).toHaveLength(2), 10_000);
        const [failed, retried] = processed();
        expect(failed!.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'handler failed' });
        expect(failed!.events.map((e) => e.name)).toEqual(['exception']);
        expect(retried).toMatchObject({ status: { code: SpanStatusCode.UNSET }, attributes: expect.objectContaining({ 'wirehook.bus.delivery_count': 2 }) });
      });
    });

    it('request/reply: a server on another connection answers; none serving is NoResponderError at once; a slow one RequestTimeoutError', async () => {
      const { connect } = await setup();
      const [server, client] = [await connect(), await connect()];
      const subject = 'wirehook.listen.ep_contract';
      await expect(client.request(subject, bytes('x'), 5_000)).rejects.toBeInstanceOf(NoResponderError);
      let slow = false;
      const served = server.serve(subject, async (data) => {
        if (slow) await sleep(500);
        return bytes(`echo ${text(data)}`);
      });
      // A subscription reaches the server a round trip after serve(): asked until it answers.
      await eventually(async () => expect(text(await client.request(subject, bytes('hi'), 2_000))).toBe('echo hi'));
      slow = true;
      await expect(client.request(subject, bytes('late'), 100)).rejects.toBeInstanceOf(RequestTimeoutError);
      await served.stop();
      await eventually(() => expect(client.request(subject, bytes('x'), 2_000)).rejects.toBeInstanceOf(NoResponderError));
    });

    it('close() waits for running handlers, then refuses to publish', async () => {
      const { subject, connect } = await setup();
      const bus = await connect();
      let started = false;
      let finished = false;
      bus.consume(
        subject,
        async () => {
          started = true;
          await sleep(300);
          finished = true;
          return 'ack';
        },
        { concurrency: 1 },
      );
      await bus.publish(subject, bytes('slow'));
      await eventually(() => expect(started).toBe(true));
      await bus.close();
      expect(finished).toBe(true);
      await expect(bus.publish(subject, bytes('late'))).rejects.toThrow(/closed/);
    });
  });
}
