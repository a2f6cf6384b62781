// The NATS adapter when things go wrong on a real nats-server: a publish request the server
// never answers, a consumer stopped as it pulls.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, type NatsServer } from '@wirehook/testkit';
import { inspect, testStream } from '../../test/nats-streams.ts';
import type { BusMessage } from '../bus.ts';
import { NatsBus, publishAttemptMs, type NatsBusOptions } from './nats-bus.ts';
import type { StreamSpec } from './streams.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

let server: NatsServer;
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('NatsBus faults', () => {
  const opened: NatsBus[] = [];
  const open = async (spec: StreamSpec, options: Partial<NatsBusOptions> = {}) => {
    const bus = await NatsBus.connect({ servers: server.url, name: 'faults-test', reconnectWaitMs: 100, streams: [spec], ...options });
    opened.push(bus);
    return bus;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((bus) => bus.close()));
  });

  it('a publish whose request is lost in a server restart is sent again within its deadline and stored once', async () => {
    // Not batched: the publish goes straight to the retry loop under test.
    const spec = testStream({ batched: false });
    const bus = await open(spec, { publishTimeoutMs: 10_000 });
    // The request reaches a hung server, which then dies unread: no answer ever comes for it.
    // Only an attempt that gives up before the deadline (half of what is left at most) and
    // asks again, once the client has reconnected, can get the acknowledgement.
    server.pause();
    const publishing = bus.publish(spec.subject, bytes('lost once'));
    await server.kill();
    await server.restart();
    await publishing;
    const { stream } = await inspect(server.url, spec);
    expect(stream.state.messages).toBe(1);
    expect(stream.state.last_seq).toBe(1);
  }, 20_000);

  it('stop() of a consumer stopped while its pull is being made resolves', async () => {
    const spec = testStream();
    // Pulls that expire long after the test's timeout: only closing the pull ends it in time.
    const bus = await open(spec, { pullExpiresMs: 60_000 });
    const handled: BusMessage[] = [];
    const subscription = bus.consume(spec.subject, async (m) => (handled.push(m), 'ack'), { concurrency: 1 });
    // Stopped in the same turn: the worker is still looking its consumer up, so its fetch
    // opens after the stop and must be closed before it is iterated. A hang fails the test by
    // its timeout.
    await subscription.stop();
    expect(handled).toEqual([]);
  }, 10_000);
});

describe('a publish attempt’s wait for its acknowledgement', () => {
  it('is half the time left, 2 s at most and 100 ms at least', () => {
    expect(publishAttemptMs(10_000)).toBe(2_000);
    expect(publishAttemptMs(4_000)).toBe(2_000);
    expect(publishAttemptMs(3_000)).toBe(1_500);
    expect(publishAttemptMs(201)).toBe(100.5);
    expect(publishAttemptMs(150)).toBe(100);
  });
});
