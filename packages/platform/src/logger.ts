import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Paths whose values are never written to a log line. */
const REDACT = [
  'req.headers.authorization',
  'headers.authorization',
  '*.secret',
  '*.key',
  '*.payload',
  'secret',
  'key',
  'payload',
];

/** The one JSON logger of a process; components take `logger.child({ component })`. */
export function createLogger(options: { name: string; level?: string; destination?: NodeJS.WritableStream }): Logger {
  return pino(
    { name: options.name, level: options.level ?? 'info', redact: { paths: REDACT, censor: '[redacted]' } },
    options.destination ?? process.stdout,
  );
}

/** A logger that writes nothing (tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
