// A sandbox thread's main: loads QuickJS once, then runs one job per message (runInQuickJs)
// and answers it. The thread's V8 heap holds only the JSON texts going in and out; each run's
// objects live in a fresh QuickJS runtime inside the WebAssembly memory.
import { parentPort, workerData } from 'node:worker_threads';
import { loadQuickJs } from './quickjs-module.ts';
import { runInQuickJs, type SandboxOutcome } from './run-in-quickjs.ts';
import type { SandboxReply, SandboxRequest } from './sandbox-thread.ts';
import { ownThreadCpuMicros, ownThreadId } from './thread-cpu.ts';
import type { SandboxLimits } from './transform-types.ts';

const port = parentPort!;
const limits = workerData as SandboxLimits;
const quickJs = await loadQuickJs(limits.memoryLimitBytes);
const memory = quickJs.memory;

port.on('message', (request: SandboxRequest) => {
  let outcome: SandboxOutcome & { fatal?: boolean };
  try {
    outcome = runInQuickJs(quickJs, request, limits);
  } catch (err) {
    // A trap or abort inside the module: this code broke QuickJS itself. The module cannot be
    // trusted again; the runner ends this thread and starts another.
    const error = `transformation: the sandbox failed while running this code (${(err as Error).message.slice(0, 200)})`;
    outcome = { ok: false, error, fatal: true };
  }
  port.postMessage({ id: request.id, ...outcome, memoryBytes: memory.buffer.byteLength, cpuMicros: ownThreadCpuMicros() } satisfies SandboxReply);
});
port.postMessage({ ready: true, threadId: ownThreadId(), cpuMicros: ownThreadCpuMicros() } satisfies SandboxReply);
