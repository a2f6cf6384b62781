// A process whose stdout reader the test closes (logger.test.ts): it logs one line, waits for a
// line on stdin (sent once the reader is gone), logs a thousand more into the broken pipe (EPIPE)
// in LOG_FORMAT, and says "survived" on stderr when stdout has closed after its error — which an
// unheard 'error' event would have ended the process before (exit 1).
import { createLogger } from '../logger.ts';

const logger = createLogger({ name: 'probe', format: process.env['LOG_FORMAT'] === 'pretty' ? 'pretty' : 'json' });
logger.info('first');
process.stdout.once('close', () => {
  process.stderr.write('survived\n');
  process.exit(0);
});
process.stdin.once('data', () => {
  for (let i = 0; i < 1_000; i++) logger.info(`line ${i}`);
});
