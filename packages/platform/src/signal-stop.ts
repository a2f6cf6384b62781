import { constants } from 'node:os';
import type { Logger } from 'pino';

/** A stop asked by a signal, for a command that must end what it holds before it exits (see abortOnSignals). */
export interface SignalStop {
  /** Aborted by the first of the signals, its reason an Error whose message is the signal's name. */
  signal: AbortSignal;
  /** The signal that asked, if one has. */
  readonly by: NodeJS.Signals | undefined;
  /** The exit code a shell gives a process that signal ended: 128 + its number (130 for SIGINT, 143 for SIGTERM). */
  exitCode(): number;
  /**
   * Whether the stop was asked, once a signal that came during synchronous work (SQLite's open,
   * which turns no event loop: the signal waits in libuv) has been delivered: a turn of the loop
   * first, while this still listens. Before `dispose`, or the signal is dropped with the listeners.
   */
  asked(): Promise<boolean>;
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
  // One the entry point heard while this command's modules loaded (holdEarlySignals) asks it now.
  const first = takeEarlySignals().find((signal) => signals.includes(signal));
  if (first !== undefined) {
    process.off(first, onSignal);
    onSignal(first);
  }
  return {
    signal: stop.signal,
    get by() {
      return by;
    },
    exitCode: () => 128 + (by === undefined ? 0 : constants.signals[by]),
    asked: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return stop.signal.aborted;
    },
    dispose: () => {
      for (const signal of signals) process.off(signal, onSignal);
    },
  };
}

/** Two SIGINTs closer than this are one Ctrl-C (forwarded by a wrapper as well as sent to the group). */
export const SAME_KEYPRESS_MS = 500;

/** A long-lived process's stop (see stopOnSignals). */
export interface ProcessStop {
  /** Aborted by the first ask, its reason an Error whose message names what asked ('SIGTERM', 'stdin closed'). */
  signal: AbortSignal;
  /** Asks the stop as a signal would; a second ask changes nothing. */
  ask(reason: string): void;
}

/**
 * A service process's stop, asked by `signals` at any point of its life: one listener a signal,
 * set before anything starts and never removed, so that none is lost, or takes the default
 * action, between one phase and the next (build, start, drain), and a second is no second stop —
 * except a second Ctrl-C SAME_KEYPRESS_MS or more after the first: the person means it now, and
 * the process exits 130 without the rest of its stop. runService's and embedded mode's.
 */
export function stopOnSignals(logger: Pick<Logger, 'warn'>, signals: readonly NodeJS.Signals[]): ProcessStop {
  const stop = new AbortController();
  let askedAt = 0;
  const ask = (reason: string) => {
    if (!stop.signal.aborted) {
      askedAt = performance.now();
      return stop.abort(new StopAsked(reason));
    }
    // Not one that comes with the first (a wrapper such as a package manager forwarding the same keypress).
    if (reason === 'SIGINT' && performance.now() - askedAt > SAME_KEYPRESS_MS) {
      logger.warn('a second Ctrl-C; exiting now, without the rest of the stop');
      process.exit(130);
    }
  };
  for (const signal of signals) process.on(signal, ask);
  // Those the entry point heard while the process's modules loaded (holdEarlySignals), asked now, in order.
  for (const signal of takeEarlySignals()) if (signals.includes(signal)) ask(signal);
  return { signal: stop.signal, ask };
}

/** The entry point's hold on the stop signals, until a stop of the process's own takes them over. */
let early: { signals: readonly NodeJS.Signals[]; heard: NodeJS.Signals[]; hold: (signal: NodeJS.Signals) => void } | undefined;

/**
 * Takes `signals` from the entry point's first line (scripts/service.ts, the container's), before a
 * service's or a job's modules load: about a second in which a signal took its default action, and
 * for a container's PID 1 that is none (a SIGTERM lost, the kubelet waiting out the grace period).
 * What it hears goes to the stop set up later (stopOnSignals, abortOnSignals), which asks itself at
 * once for each. Idempotent.
 */
export function holdEarlySignals(signals: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): void {
  if (early !== undefined) return;
  const heard: NodeJS.Signals[] = [];
  const hold = (signal: NodeJS.Signals) => void heard.push(signal);
  for (const signal of signals) process.on(signal, hold);
  early = { signals, heard, hold };
}

/**
 * Ends the hold, called once the caller's own listeners are set: a signal's listeners never fall to
 * none during the handover, so libuv's watch on it never stops. That is what keeps a signal sent
 * while the modules load — they load without a turn of the event loop, so it waits in libuv — for
 * the caller's listener rather than dropped. @returns what the hold heard (on a turn before this), in order.
 */
function takeEarlySignals(): NodeJS.Signals[] {
  if (early === undefined) return [];
  for (const signal of early.signals) process.off(signal, early.hold);
  const { heard } = early;
  early = undefined;
  return heard;
}

/** The reason of a stop asked: the signal's name, or what else asked it. */
class StopAsked extends Error {
  override name = 'StopAsked';
}
