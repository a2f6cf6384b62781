export type { TransformInput, TransformResult } from '@wirehook/core';

/** A run's limits, as a sandbox thread applies them. */
export interface SandboxLimits {
  /** The sandbox thread's CPU time from the start of the run (runtime creation included) to its result. */
  cpuBudgetMs: number;
  /** The run's heap: every object, string and buffer, the context itself and the input copied in. */
  memoryLimitBytes: number;
  /** QuickJS's own stack limit: deep recursion fails as an InternalError before the thread's stack runs out. */
  stackLimitBytes: number;
}
