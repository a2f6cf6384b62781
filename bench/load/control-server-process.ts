// The control server's process (see control-server.ts): a bare node:http server that answers
// every request at once with a constant, and tells the harness its port.
import { createServer } from 'node:http';

// About the size of the probing org's event-type list, so the bytes on the wire match.
const body = JSON.stringify({ data: [{ name: 'bench.event', description: null, schema: null, archived: false }], iterator: null, done: true });
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the control server has no port');
  process.send!(address.port);
});
// Ends with the harness: its IPC channel closes when the harness exits, however it exits.
process.on('disconnect', () => process.exit(0));
