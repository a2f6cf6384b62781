// The stream configuration an operator chooses (NATS_STREAM_*) and what a start may change
// on a stream that exists: replicas never lowered, storage never changed, max_age only when
// configured. Pure rules first (a single nats-server can only hold R1), then a real server.
import { connect } from '@nats-io/transport-node';
import { jetstreamManager, type StreamConfig } from '@nats-io/jetstream';
import { startNatsServer, type NatsServer } from '@wirehook/testkit';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { NatsBus } from './nats-bus.ts';
import { DISPATCH_STREAM, streamConfig, streamUpdate, type StreamSettings, type StreamSpec } from './streams.ts';

const settings = (over: Partial<StreamSettings> = {}): StreamSettings => ({ replicas: 1, storage: 'file', maxAgeMs: 0, maxBytes: 8 * 1024 * 1024, ...over });
/** The server's view of a stream made from `s` (what streams.info reports, as far as the rules read it). */
const onServer = (s: StreamSettings) => streamConfig(DISPATCH_STREAM, s) as StreamConfig;

describe('streamUpdate: what a start sends for an existing stream', () => {
  it('the same configuration: nothing to change, nothing to say', () => {
    expect(streamUpdate(streamConfig(DISPATCH_STREAM, settings()), onServer(settings()))).toMatchObject({ changed: [], notes: [] });
  });

  it("an operator's R3 stays R3 when the configuration says 1, said at info", () => {
    const update = streamUpdate(streamConfig(DISPATCH_STREAM, settings({ replicas: 1 })), onServer(settings({ replicas: 3 })));
    expect(update.config.num_replicas).toBe(3);
    expect(update.changed).toEqual([]);
    expect(update.notes).toEqual([
      { level: 'info', message: 'stream WIREHOOK_DISPATCH keeps its 3 replicas (NATS_STREAM_REPLICAS=1): replicas are never lowered at start' },
    ]);
  });

  it('more replicas configured than the stream has: raised', () => {
    const update = streamUpdate(streamConfig(DISPATCH_STREAM, settings({ replicas: 3 })), onServer(settings({ replicas: 1 })));
    expect(update.config.num_replicas).toBe(3);
    expect(update.changed).toEqual(['num_replicas']);
    expect(update.notes).toEqual([]);
  });

  it('another storage configured: the stream keeps its own (JetStream cannot change it), a warning names both', () => {
    const update = streamUpdate(streamConfig(DISPATCH_STREAM, settings({ storage: 'memory' })), onServer(settings({ storage: 'file' })));
    expect(update.config.storage).toBe('file');
    expect(update.changed).toEqual([]);
    expect(update.notes).toHaveLength(1);
    expect(update.notes[0]!.level).toBe('warn');
    expect(update.notes[0]!.message).toMatch(/stream WIREHOOK_DISPATCH is stored in file, NATS_STREAM_STORAGE says memory: .*file is kept/);
  });

  it('max_age: the configured one when set (raised or lowered); unset (0), the server’s is kept', () => {
    const hour = 3_600_000;
    const existing = onServer(settings({ maxAgeMs: hour }));
    expect(streamUpdate(streamConfig(DISPATCH_STREAM, settings({ maxAgeMs: 0 })), existing)).toMatchObject({ changed: [], config: { max_age: hour * 1e6 } });
    expect(streamUpdate(streamConfig(DISPATCH_STREAM, settings({ maxAgeMs: hour / 2 })), existing)).toMatchObject({
      changed: ['max_age'],
      config: { max_age: (hour / 2) * 1e6 },
    });
    expect(streamUpdate(streamConfig(DISPATCH_STREAM, settings({ maxAgeMs: 2 * hour })), onServer(settings()))).toMatchObject({
      changed: ['max_age'],
      config: { max_age: 2 * hour * 1e6 },
    });
  });
});

describe('stream settings on a real nats-server', () => {
  const servers: NatsServer[] = [];
  const buses: NatsBus[] = [];
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.close()));
    await Promise.all(servers.map((s) => s.stop()));
  });
  let plain: NatsServer | undefined;
  /** A nats-server with file storage, shared by the tests that need one. */
  const fileServer = async () => {
    if (!plain) servers.push((plain = await startNatsServer()));
    return plain;
  };
  let n = 0;
  const spec = (): StreamSpec => ({
    ...DISPATCH_STREAM,
    stream: `SETTINGS_${++n}`,
    subject: `settings.s${n}`,
    topic: `settings.s${n}`,
    consumer: `settings-c${n}`,
  });
  const open = async (server: NatsServer, s: StreamSpec, streamSettings: StreamSettings, streamLogger?: { info: () => void; warn: () => void }) => {
    const bus = await NatsBus.connect({ servers: server.url, name: 'settings-test', streams: [s], streamSettings, streamLogger });
    buses.push(bus);
    return bus;
  };
  const inspect = async (server: NatsServer, s: StreamSpec) => {
    const nc = await connect({ servers: server.url });
    try {
      const jsm = await jetstreamManager(nc);
      return { stream: await jsm.streams.info(s.stream), consumer: await jsm.consumers.info(s.stream, s.consumer) };
    } finally {
      await nc.close();
    }
  };
  /** Publishes one job and resolves with it once the consumer hands it out. */
  const roundTrip = (bus: NatsBus, s: StreamSpec) =>
    new Promise<string>((resolve, reject) => {
      const sub = bus.consume(
        s.subject,
        async (m) => {
          resolve(new TextDecoder().decode(m.data));
          void sub.stop();
          return 'ack';
        },
        { concurrency: 1 },
      );
      bus.publish(s.subject, new TextEncoder().encode('job')).catch(reject);
    });

  it('a JetStream without file storage: file is refused naming NATS_STREAM_STORAGE; memory connects and carries jobs', async () => {
    const server = await startNatsServer({ memoryOnly: true });
    servers.push(server);
    const s = spec();
    await expect(open(server, s, settings())).rejects.toThrow(/a server without file storage needs NATS_STREAM_STORAGE=memory/);
    const bus = await open(server, s, settings({ storage: 'memory' }));
    expect(await roundTrip(bus, s)).toBe('job');
    const { stream, consumer } = await inspect(server, s);
    expect(stream.config.storage).toBe('memory');
    expect(consumer.config.num_replicas).toBe(stream.config.num_replicas);
  }, 30_000);

  it('max_age from the settings is applied; a later start without one keeps it; one with another sets that', async () => {
    const server = await fileServer();
    const s = spec();
    await open(server, s, settings({ maxAgeMs: 600_000 }));
    expect((await inspect(server, s)).stream.config.max_age).toBe(600e9);
    await open(server, s, settings());
    expect((await inspect(server, s)).stream.config.max_age).toBe(600e9);
    await open(server, s, settings({ maxAgeMs: 300_000 }));
    const { stream } = await inspect(server, s);
    expect(stream.config.max_age).toBe(300e9);
    // As the server reports it, the stream matches the declaration: the next start sends no update.
    expect(streamUpdate(streamConfig(s, settings({ maxAgeMs: 300_000 })), stream.config).changed).toEqual([]);
  }, 30_000);

  it('a file stream started with memory configured stays file, warned; the bus still works', async () => {
    const server = await fileServer();
    const s = spec();
    await open(server, s, settings());
    const streamLogger = { info: vi.fn(), warn: vi.fn() };
    const bus = await open(server, s, settings({ storage: 'memory' }), streamLogger);
    expect((await inspect(server, s)).stream.config.storage).toBe('file');
    expect(streamLogger.warn).toHaveBeenCalledWith({ stream: s.stream }, expect.stringContaining('NATS_STREAM_STORAGE says memory'));
    expect(await roundTrip(bus, s)).toBe('job');
  }, 30_000);
});
