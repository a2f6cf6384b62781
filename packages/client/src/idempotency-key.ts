/**
 * A fresh idempotency key for `messages.send` (a random UUID). Make one per message you mean
 * to send, keep it with the message, and pass the SAME key when you retry that send after a
 * network error or a timeout: Wirehook then answers with the first message's id for 24 hours
 * instead of storing (and delivering) it twice.
 */
export function idempotencyKey(): string {
  const crypto = globalThis.crypto as Crypto | undefined;
  if (typeof crypto?.randomUUID === 'function') return crypto.randomUUID();
  // Runtimes without crypto.randomUUID (Node 18 without the global, old browsers): a key
  // needs to be unique, not secret, so a version-4 layout over the best randomness there is.
  const bytes = new Uint8Array(16);
  if (typeof crypto?.getRandomValues === 'function') crypto.getRandomValues(bytes);
  else for (let i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * `key` as an HTTP header value: its UTF-8 bytes, one character a byte (what fetch puts on the
 * wire as they are). Wirehook reads a value's UTF-8 bytes as UTF-8, so `ключ-1` arrives as
 * written; passed as it is, fetch refuses any character past U+00FF.
 */
export function idempotencyKeyHeader(key: string): string {
  if (!/[\u0080-\uffff]/.test(key)) return key;
  return Array.from(new TextEncoder().encode(key), (byte) => String.fromCharCode(byte)).join('');
}
