// Numbers in messages people read ("at most 1,000,000 bytes"). Number#toLocaleString formats
// through ICU, whose first use costs a process or thread ≈ 20 ms of CPU (measured: a bare
// `(65536).toLocaleString('en-US')` in a fresh Node 24 process, 19–21 ms) — paid at start by
// every service whose modules built such a message as they loaded, and by the first request
// that failed. Grouping an integer's digits needs none of it.

/**
 * `n` with its digits grouped in threes by commas, as `n.toLocaleString('en')` writes an
 * integer: 1048576 → "1,048,576", -1200 → "-1,200"; -0 as "0" (where toLocaleString writes
 * "-0"). Anything but a safe integer (a fraction, NaN, ±Infinity, beyond 2^53) is left to
 * toLocaleString, which rounds and names it as before.
 */
export function thousands(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en');
  const digits = String(Math.abs(n));
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}
