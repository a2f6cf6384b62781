// What a nats-server holds, read through nats.js's JetStream manager: every stream with its
// subjects, and every consumer with its filter. KV buckets are streams too (`KV_<bucket>`),
// so they are in the list when there are any.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type ConnectionOptions } from '@nats-io/transport-node';

/** One stream on the server and the consumers on it. */
export interface StreamOnServer {
  name: string;
  subjects: string[];
  /** `<durable name> <filter subject>`, sorted. */
  consumers: string[];
  /** Messages ever stored (its last sequence number), acknowledged and removed ones included. */
  published: number;
}

/** Every stream (sorted by name) of the account `options` connect to, with its consumers. */
export async function natsTopology(url: string, options: Partial<ConnectionOptions> = {}): Promise<StreamOnServer[]> {
  const nc = await connect({ servers: url, ...options });
  try {
    const jsm = await jetstreamManager(nc);
    const streams: StreamOnServer[] = [];
    for await (const info of jsm.streams.list()) {
      const consumers: string[] = [];
      for await (const c of jsm.consumers.list(info.config.name)) consumers.push(`${c.name} ${c.config.filter_subject ?? ''}`);
      streams.push({ name: info.config.name, subjects: info.config.subjects ?? [], consumers: consumers.sort(), published: info.state.last_seq });
    }
    return streams.sort((a, b) => a.name.localeCompare(b.name));
  } finally {
    await nc.close();
  }
}
