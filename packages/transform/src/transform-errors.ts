import { CODE_FILE_NAME } from './sandbox-prelude.ts';

/** Longest message taken from what the code threw: it is the code's own text, stored with the attempt. */
const MAX_MESSAGE_CHARS = 500;
const POSITION = new RegExp(`${CODE_FILE_NAME.replace('.', '\\.')}:(\\d+):(\\d+)`);

/** The run went past its CPU budget (the interrupt handler stopped it, or the watchdog ended its thread). */
/**
 * CPU time a run gets besides its budget for reading its input in and writing its answer out
 * (QuickJS's JSON, ~100 ms a megabyte on the development machine, twice that here): a 1 MB
 * payload passed through unchanged must not fail for its size. Per byte of the input's JSON.
 */
export const JSON_MS_PER_MB = 200;

/** A run's CPU budget for an input of `inputChars` characters of JSON: the budget, and the JSON's allowance. */
export function runBudgetMs(cpuBudgetMs: number, inputChars: number): number {
  return cpuBudgetMs + Math.round((inputChars / 1_000_000) * JSON_MS_PER_MB);
}

export function cpuBudgetError(cpuBudgetMs: number): string {
  return `transformation: ran longer than ${cpuBudgetMs} ms (CPU budget)`;
}

/** The run's thread was given too little CPU to finish within the wall-clock limit: the machine's load, not the code's budget. */
export function wallLimitError(wallLimitMs: number): string {
  return `transformation: did not finish within ${wallLimitMs} ms, its thread given too little CPU by a busy machine (wall-clock limit)`;
}

/** The runtime's allocator refused past the limit. MB here are 2^20 bytes: 16 MiB reads "16 MB". */
export function memoryLimitError(memoryLimitBytes: number): string {
  const mb = Math.round((memoryLimitBytes / 2 ** 20) * 100) / 100;
  return `transformation: used more than ${mb} MB of memory (memory limit)`;
}

/** What the code threw (or failed to parse), with the first position in the code its stack names. */
export function thrownError(thrown: { name: string | null; message: string | null; stack: string | null }): string {
  let text = thrown.name === null ? (thrown.message ?? 'threw a value that cannot be read') : `${thrown.name}: ${thrown.message ?? ''}`;
  if (text.length > MAX_MESSAGE_CHARS) text = `${text.slice(0, MAX_MESSAGE_CHARS)}…`;
  const position = thrown.stack === null ? null : POSITION.exec(thrown.stack);
  return position ? `transformation: ${text} (line ${position[1]}, column ${position[2]})` : `transformation: ${text}`;
}
