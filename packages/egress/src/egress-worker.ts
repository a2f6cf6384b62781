// The egress thread (see egress-thread.ts): one HttpEgress, sending what it is posted and
// answering each send with its result — failures are data here too.
import { parentPort, workerData } from 'node:worker_threads';
import { turnOutbox } from '@wirehook/core/without-schemas';
import { AddressPolicy } from './address-policy.ts';
import { EGRESS_READY, type EgressCall, type EgressReply, type EgressThreadOptions } from './egress-thread.ts';
import { HttpEgress } from './http-egress.ts';
import { systemLookup } from './resolve-host.ts';
import { lookupWithOverrides, parseResolveOverrides } from './resolve-overrides.ts';

const port = parentPort!;
const options = workerData as EgressThreadOptions;
const egress = new HttpEgress({
  policy: new AddressPolicy({ allowHosts: options.allowHosts }),
  lookup: lookupWithOverrides(parseResolveOverrides(options.resolve), systemLookup),
  timeoutMs: options.timeoutMs,
  connectionsPerOrigin: options.connectionsPerOrigin,
  ca: options.ca,
});

// Answers settled during one turn of the event loop go back in one message.
const reply = turnOutbox<EgressReply>((answers) => port.postMessage(answers));
const failed = (id: number, err: unknown): EgressReply => ({
  id,
  ok: false,
  name: err instanceof Error ? err.name : 'Error',
  message: err instanceof Error ? err.message : String(err),
});

// A message that could not be read: which sends it held is unknown, so the thread ends and the caller fails them all.
port.on('messageerror', () => process.exit(1));
port.on('message', (calls: EgressCall[]) => {
  for (const call of calls) {
    const done = 'close' in call ? egress.close() : egress.send(call.request, call.encoded);
    done.then(
      (value) => reply({ id: call.id, ok: true, value: value ?? undefined }),
      (err: unknown) => reply(failed(call.id, err)),
    );
  }
});

port.postMessage(EGRESS_READY);
