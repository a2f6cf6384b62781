import type { SandboxOutcome } from './run-in-quickjs.ts';
import type { TransformInput, TransformResult } from './transform-types.ts';

/** What the prelude's `run` answers (sandbox-prelude.ts); `kind` is `typeof`, with "null" and "array" apart. */
interface Answer {
  handler?: string;
  result?: string;
  cancel?: true;
  cancelKind?: string;
  payload?: unknown;
  payloadKind?: string;
  payloadError?: string;
  headers?: unknown;
  headersKind?: string;
  headersError?: string;
  url?: unknown;
  urlKind?: string;
  urlError?: string;
}

const RETURN_RULE = 'it must return an object: the webhook, changed, or {cancel: true}';

/**
 * A sandbox thread's outcome as the caller's TransformResult: what the handler returned,
 * checked and put in words here, outside the sandbox (nothing from it is trusted, and the
 * checks cost no compile time in it). The answer's JSON.parse makes own data properties only:
 * a key named __proto__ changes no prototype. Headers or url the code left out are the input's.
 */
export function toTransformResult(outcome: SandboxOutcome, input: TransformInput): TransformResult {
  if (!outcome.ok) return outcome;
  let answer: Answer;
  try {
    answer = JSON.parse(outcome.output) as Answer;
  } catch {
    return fail('the sandbox answered in an unexpected shape');
  }
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return fail('the sandbox answered in an unexpected shape');
  if (answer.handler !== undefined) {
    if (answer.handler === 'undefined') return fail('the code defines no function handler(webhook)');
    return fail(`handler is ${a(answer.handler)}, not a function: define function handler(webhook)`);
  }
  if (answer.result === 'promise') return fail('handler(webhook) returned a Promise; transformations are synchronous (no async or await)');
  if (answer.result !== undefined) return fail(`handler(webhook) returned ${a(answer.result)}; ${RETURN_RULE}`);
  if (answer.cancel === true) return { ok: true, cancel: true };
  if (answer.cancelKind !== 'undefined' && answer.cancelKind !== 'boolean') return fail(`cancel must be true or false; it is ${a(String(answer.cancelKind))}`);

  if (answer.payloadError !== undefined) return fail(`the returned payload is not JSON-serialisable (${answer.payloadError})`);
  if (answer.payloadKind === 'undefined') return fail('the returned object has no payload: return the webhook with its payload, or {cancel: true}');
  if (answer.payloadKind === 'function' || answer.payloadKind === 'symbol') {
    return fail(`the returned payload is ${a(answer.payloadKind)}, which JSON cannot represent`);
  }

  const headers = headersOf(answer, input);
  if (typeof headers === 'string') return fail(headers);
  let url = input.url;
  if (answer.urlKind !== 'undefined') {
    if (answer.urlKind !== 'string' || typeof answer.url !== 'string')
      return fail(`the returned url must be a string; it is ${a(answer.urlKind ?? jsonKind(answer.url))}`);
    url = answer.url;
  }
  return { ok: true, cancel: false, payload: answer.payload, headers, url };
}

/** The returned headers (the input's when left out), or what is wrong with them. */
function headersOf(answer: Answer, input: TransformInput): Record<string, string> | string {
  if (answer.headersError !== undefined) return `the returned headers are not JSON-serialisable (${answer.headersError})`;
  if (answer.headersKind === 'undefined') return { ...input.headers };
  if (answer.headersKind !== 'object' || !isRecord(answer.headers)) {
    return `the returned headers must be an object of header names to strings; it is ${a(answer.headersKind ?? jsonKind(answer.headers))}`;
  }
  for (const [name, value] of Object.entries(answer.headers)) {
    if (typeof value !== 'string') return `the returned header ${JSON.stringify(name)} must be a string; it is ${a(jsonKind(value))}`;
  }
  return answer.headers as Record<string, string>;
}

function fail(what: string): TransformResult {
  return { ok: false, error: `transformation: ${what}` };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The kind of a value parsed from JSON, in the prelude's words. */
function jsonKind(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** A kind with its article, as the messages say it: "a number", "an array", "null", "undefined". */
function a(kind: string): string {
  if (kind === 'null' || kind === 'undefined') return kind;
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}
