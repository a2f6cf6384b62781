import { constants } from 'node:os';

/** A stop asked by a signal, for a command that must end what it holds before it exits (see abortOnSignals). */
export interface SignalStop {
  /** Aborted by the first of the signals, its reason an Error whose message is the signal's name. */
  signal: AbortSignal;
  /** The signal that asked, if one has. */
  readonly by: NodeJS.Signals | undefined;
  /** The exit code a shell gives a process that signal ended: 128 + its number (130 for SIGINT, 143 for SIGTERM). */
  exitCode(): number;
  /** Stops listening: the signals take their default action again. */
  dispose(): void;
}

/**
 * Listens once for each of `signals` (SIGINT and SIGTERM unless told): the first aborts `signal`,
 * so that what a command waits for ends and gives up what it holds (a MongoDB layout upgrade's
 * lease) before it exits with `exitCode()`. The admin CLI and `wirehook migrate` use it; a
 * service's stop is runService's.
 */
export function abortOnSignals(signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM']): SignalStop {
  const stop = new AbortController();
  let by: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    by ??= signal;
    stop.abort(new Error(signal));
  };
  for (const signal of signals) process.once(signal, onSignal);
  return {
    signal: stop.signal,
    get by() {
      return by;
    },
    exitCode: () => 128 + (by === undefined ? 0 : constants.signals[by]),
    dispose: () => {
      for (const signal of signals) process.off(signal, onSignal);
    },
  };
}
