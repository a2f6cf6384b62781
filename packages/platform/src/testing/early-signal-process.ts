// A process that hears `SIGNALS` (comma-separated) at its entry point (holdEarlySignals) while it
// "loads" — each sent to itself and dispatched to the hold before its own stop exists — then sets
// up that stop (STOP: `service`, stopOnSignals; `command`, abortOnSignals) and says whether it was
// asked: the signal-stop tests' subject.
import { setImmediate as turn } from 'node:timers/promises';
import { abortOnSignals, holdEarlySignals, stopOnSignals } from '../signal-stop.ts';

holdEarlySignals();
for (const signal of (process.env['SIGNALS'] ?? '').split(',').filter(Boolean) as NodeJS.Signals[]) {
  process.kill(process.pid, signal);
  // A turn of the event loop: the signal reaches the hold (its only listener).
  await turn();
  await turn();
}
const warned: string[] = [];
const signal =
  process.env['STOP'] === 'command'
    ? abortOnSignals(['SIGTERM', 'SIGINT']).signal
    : stopOnSignals({ warn: (line: string) => void warned.push(line) } as never, ['SIGTERM']).signal;
process.stdout.write(`${JSON.stringify({ aborted: signal.aborted, reason: signal.aborted ? (signal.reason as Error).message : null })}\n`);
