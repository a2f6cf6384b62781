// Streams of their own for the NATS adapter's tests, and what the server says of them. In
// test/, outside src, like the Bus contract: production code never loads it.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { DISPATCH_STREAM, type StreamSpec } from '../src/nats/streams.ts';

let streams = 0;

/** A stream of its own for each test, configured like the dispatch stream (batched) unless told otherwise. */
export function testStream(overrides: Partial<StreamSpec> = {}): StreamSpec {
  streams++;
  return { ...DISPATCH_STREAM, topic: `test.s${streams}`, stream: `TEST_${streams}`, subject: `test.s${streams}`, consumer: `test-c${streams}`, ...overrides };
}

/**
 * The stream and its shared consumer as the server at `url` reports them, through a connection
 * of its own (the stream's `state.last_seq` counts the JetStream messages stored).
 */
export async function inspect(url: string, spec: StreamSpec) {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    return { stream: await jsm.streams.info(spec.stream), consumer: await jsm.consumers.info(spec.stream, spec.consumer) };
  } finally {
    await nc.close();
  }
}
