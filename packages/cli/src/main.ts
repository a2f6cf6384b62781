#!/usr/bin/env node
// The `wirehook` command: `listen` forwards a consumer's webhooks to a server on this machine,
// `trigger` sends one. From a checkout: `./dev pnpm -s wirehook …`.
import { parseArgs } from 'node:util';
import { listen } from './listen.ts';
import { trigger } from './trigger.ts';

const USAGE = `usage:
  wirehook listen --forward-to <local URL> [--events a,b] [--consumer ID] [--print-json]
  wirehook trigger <event_type> [--payload JSON] [--consumer ID]

The API key comes from WIREHOOK_API_KEY or --api-key (a test-environment key, sk_test_…);
the API from WIREHOOK_API_URL (default http://localhost:8080). --consumer takes a consumer's
id (con_…) or external_id; without it, the consumer with external_id wirehook-listen.`;

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (err) {
    // An unknown option or a missing value is a usage error like the others (exit 2).
    return usage(err instanceof Error ? err.message : String(err));
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (command === undefined) return usage('no command: listen or trigger');
  const apiKey = values['api-key'] ?? process.env['WIREHOOK_API_KEY'];
  if (!apiKey) return usage('no API key: set WIREHOOK_API_KEY or pass --api-key');
  const apiUrl = (process.env['WIREHOOK_API_URL'] || 'http://localhost:8080').replace(/\/+$/, '');
  if (command === 'listen') {
    if (rest.length > 0) return usage(`listen takes no arguments (got ${rest.join(' ')}): its URL goes in --forward-to`);
    const forwardTo = values['forward-to'];
    if (!forwardTo) return usage('listen needs --forward-to <local URL>, e.g. --forward-to http://localhost:3000/webhook');
    return listen({ apiUrl, apiKey, forwardTo, events: values.events, consumer: values.consumer, printJson: values['print-json'] === true });
  }
  if (command === 'trigger') {
    const [eventType, ...extra] = rest;
    if (!eventType) return usage('trigger needs an event type, e.g. wirehook trigger invoice.paid');
    if (extra.length > 0) return usage(`trigger takes one event type (got also ${extra.join(' ')}); a payload goes in --payload`);
    return trigger({ apiUrl, apiKey, eventType, payload: values.payload, consumer: values.consumer });
  }
  return usage(`unknown command ${command}`);
}

function parseOptions(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      consumer: { type: 'string' },
      'print-json': { type: 'boolean' },
      payload: { type: 'string' },
      'api-key': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** A usage error: what is wrong and the usage, on stderr; exit 2. */
function usage(problem: string): number {
  console.error(`wirehook: ${problem}\n\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`wirehook: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
